package matrix

import "fmt"

// Scatter describes points in two coordinates in groups — each
// submission's maps in an embedding — drawn as the cryo-EM challenge's
// plot_common_embedding draws them: a panel per group, its points in
// the group's colour and marker over every group's points in grey, one
// pair of axes' ranges for all, the group's label as its legend.
type Scatter struct {
	Title          string
	XLabel, YLabel string
	Groups         []Group
}

// Group is one group of a Scatter: point i is (X[i], Y[i]).
type Group struct {
	Label string
	X, Y  []float64
}

// PlotKind is ScatterKind.
func (Scatter) PlotKind() string { return ScatterKind }

// Check refuses a scatter plot without groups or with a group whose
// coordinates differ in count.
func (s Scatter) Check() error {
	if len(s.Groups) == 0 {
		return fmt.Errorf("scatter plot %s: no groups", s.Title)
	}
	for _, g := range s.Groups {
		if len(g.X) != len(g.Y) {
			return fmt.Errorf("scatter plot %s: group %s has %d x and %d y coordinates", s.Title, g.Label, len(g.X), len(g.Y))
		}
	}
	return nil
}

// Columns is the scatter plot of columns x and y of the row-major
// n × k matrices of each group (embeddings, whose rows are maps and
// columns components).
func Columns(title string, labels []string, mats [][]float64, k, x, y int) Scatter {
	s := Scatter{Title: title, XLabel: fmt.Sprintf("Z%d", x+1), YLabel: fmt.Sprintf("Z%d", y+1)}
	for i, m := range mats {
		g := Group{Label: labels[i]}
		for r := range len(m) / k {
			g.X = append(g.X, m[r*k+x])
			g.Y = append(g.Y, m[r*k+y])
		}
		s.Groups = append(s.Groups, g)
	}
	return s
}
