package processes

import (
	"testing"

	"github.com/authbench/authbench/pkg/lab"
)

func TestInsertAfterReplicas(t *testing.T) {
	cs := []lab.ComponentInfo{{Name: "a"}, {Name: "ext"}, {Name: "ext-r2", ReplicaOf: "ext"}, {Name: "gw"}}
	got := insertAfter(cs, "ext", lab.ComponentInfo{Name: "ext-r3", ReplicaOf: "ext"})
	want := []string{"a", "ext", "ext-r2", "ext-r3", "gw"}
	if len(got) != len(want) {
		t.Fatalf("got %d components, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Name != w {
			t.Errorf("component %d = %s, want %s", i, got[i].Name, w)
		}
	}
}

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
