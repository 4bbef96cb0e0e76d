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
// m, for the fuzz target.
func VariantValueJSON(m, v []byte) (string, error) {
	meta, err := parseVariantMeta(m)
	if err != nil {
		return "", err
	}
	w := &variantJSON{}
	if err := w.value(&meta, v, 0); err != nil {
		return "", err
	}
	return string(w.out), nil
}
