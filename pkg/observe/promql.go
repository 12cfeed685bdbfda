package observe

import "strconv"

// EscapeLabelValue escapes s for the inside of a PromQL double-quoted
// string, as a profile's templates write label values
// (namespace="{{.namespace}}"): a backslash, a double quote, a newline or
// any other control character cannot end the string or add a matcher, so
// a value such as `app"} or vector(1) #` stays one label value. PromQL
// reads strings with Go's escapes, which strconv.Quote writes.
func EscapeLabelValue(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// QuoteLabelValue is s as a PromQL double-quoted string.
func QuoteLabelValue(s string) string { return `"` + EscapeLabelValue(s) + `"` }
