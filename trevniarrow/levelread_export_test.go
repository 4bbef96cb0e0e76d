package trevniarrow

// SetRecordsOnly makes every RecordReader read records as Avro binary
// (on) or from the columns where it can (off), for the tests comparing
// the two.
func SetRecordsOnly(on bool) { recordsOnly = on }

// Columnar says whether rr builds its batches from the columns.
func Columnar(rr *RecordReader) bool { return rr.col != nil }
