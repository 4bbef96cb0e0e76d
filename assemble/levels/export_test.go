package levels

// NoDirect, set, makes every Reader read its ColumnReaders (the route
// before the direct one), for the tests that compare the two.
var NoDirect = &noDirect

// IsDirect says whether r reads by the direct route.
func IsDirect(r *Reader) bool { return r.dvals != nil }
