package trevniparquet

// VariantJSONText returns the JSON text of the Variant whose metadata
// starts b and whose value follows it (a .variant.bin file of
// parquet-testing's shredded_variant).
func VariantJSONText(b []byte) (string, error) {
	m, err := parseVariantMeta(b)
	if err != nil {
		return "", err
	}
	w := &variantJSON{}
	if err := w.value(&m, b[m.length():], 0); err != nil {
		return "", err
	}
	return string(w.out), nil
}

// VariantValueJSON returns the JSON text of Variant value v of metadata
// m, its text bounded by limit bytes (0: maxVariantText), for the fuzz
// target and the tests of malformed values.
func VariantValueJSON(m, v []byte, limit int) (string, error) {
	meta, err := parseVariantMeta(m)
	if err != nil {
		return "", err
	}
	w := &variantJSON{limit: limit}
	if err := w.value(&meta, v, 0); err != nil {
		return "", err
	}
	return string(w.out), nil
}

// VariantMetaLen returns the length of the metadata that starts b.
func VariantMetaLen(b []byte) (int, error) {
	m, err := parseVariantMeta(b)
	if err != nil {
		return 0, err
	}
	return m.length(), nil
}

// MaxVariantText is the bound of the JSON text of a column's Variants
// in a batch.
const MaxVariantText = maxVariantText

// VariantEncode returns the Variant metadata and value of JSON text, as
// toparquet writes a string marked VariantProp.
func VariantEncode(text string) (meta, value []byte, err error) {
	var e variantEncoder
	return e.encode(text)
}

// VariantEncoder is the encoder of VariantEncode, reused, for the
// benchmark.
type VariantEncoder struct{ e variantEncoder }

// Encode is VariantEncode in the encoder's memory.
func (v *VariantEncoder) Encode(text string) (meta, value []byte, err error) {
	return v.e.encode(text)
}
