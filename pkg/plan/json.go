package plan

import (
	"bytes"
	"encoding/json"
)

// marshalJSON encodes without HTML escaping, so that a redacted value reads
// "<redacted, 43 chars>" in run.json rather than "\u003credacted…".
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func unmarshalJSON(b []byte, v any) error { return json.Unmarshal(b, v) }
