package load

import "time"

// epoch anchors the engine's clock: now() is monotonic nanoseconds since
// epoch, cheap to read and to subtract on the hot path.
var epoch = time.Now()

func now() int64 { return int64(time.Since(epoch)) }

// wall converts an engine time back to a time.Time.
func wall(t int64) time.Time { return epoch.Add(time.Duration(t)) }
