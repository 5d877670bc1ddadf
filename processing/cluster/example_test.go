package cluster_test

import (
	"fmt"

	"github.com/voxlab/voxlab/processing/cluster"
)

func ExampleShellQuote() {
	for _, s := range []string{"scan 1.nxs", "it's", "$(rm -rf ~)"} {
		q, _ := cluster.ShellQuote(s)
		fmt.Println(q)
	}
	// Output:
	// 'scan 1.nxs'
	// 'it'\''s'
	// '$(rm -rf ~)'
}
