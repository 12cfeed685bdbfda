package processes

import (
	"testing"

	"github.com/authbench/authbench/pkg/lab"
)

func TestLimitNamesEveryReplica(t *testing.T) {
	cs := []lab.ComponentInfo{{Name: "ext", Program: "p"}, {Name: "ext-r2", ReplicaOf: "ext", Program: "p"}, {Name: "other", Program: "p"}}
	tests := []struct {
		name string
		want []int
	}{
		{"ext", []int{0, 1}},
		{"ext-r2", []int{1}},
		{"p", []int{0, 1, 2}},
		{"none", nil},
	}
	for _, tc := range tests {
		got := matchComponents(cs, tc.name)
		if len(got) != len(tc.want) {
			t.Errorf("matchComponents(%s) = %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("matchComponents(%s) = %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
