package panel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/widgets"
)

// ClusterOptions say how a request runs on a SLURM cluster: as a job
// array of Tasks tasks and a merge job (voxlab submit slurm).
type ClusterOptions struct {
	Tasks int
	// Partition, Gres ("gpu:1", per task) and Time ("2:00:00") go to
	// sbatch when set.
	Partition, Gres, Time string
}

// Where a request runs.
const (
	RunHere    = "This machine"
	RunCluster = "SLURM cluster"
)

// clusterHelp explains what a cluster run does.
const clusterHelp = "The run is split into tasks submitted to SLURM as a job array (each task a range of " +
	"projections, planes or ground-truth rows, on its own node, planning its own blocks there), and a " +
	"merge job that joins them into the output once every task has finished. Inputs and outputs must " +
	"be on a file system the nodes share. The job stays in the list until the merge job ends; " +
	"cancelling it cancels the SLURM jobs."

// clusterControls choose where a run goes: this machine, or a SLURM
// cluster with its task count, partition, GPUs per task and time limit.
// They show only for pipelines that can run on a cluster (Pipeline.
// RunCluster, which the application sets where sbatch is on the PATH).
type clusterControls struct {
	p         *Panel
	where     *widget.Select
	tasks     *widget.Entry
	partition *widget.Entry
	gres      *widget.Entry
	time      *widget.Entry
	msg       *widget.Label
	opts      *fyne.Container
	box       *fyne.Container
}

func newClusterControls(p *Panel) *clusterControls {
	c := &clusterControls{p: p}
	c.where = widget.NewSelect([]string{RunHere, RunCluster}, func(string) { c.update(); p.changed(); widgets.Refocus(p.v.Window(), false) })
	var entries []*widget.Entry
	entry := func(placeholder, text string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.SetText(text)
		entries = append(entries, e)
		return e
	}
	c.tasks = entry("number of array tasks", "4")
	c.partition = entry("the cluster's default", "")
	c.gres = entry("none, or gpu:1", "")
	c.time = entry("the partition's limit, or 2:00:00", "")
	c.msg = widgets.WrapLabel("", widget.DangerImportance)
	help := widgets.WrapLabel(clusterHelp, widget.LowImportance)
	c.opts = container.NewVBox(
		container.NewGridWithColumns(2,
			container.NewVBox(widget.NewLabel("Tasks"), c.tasks),
			container.NewVBox(widget.NewLabel("Partition"), c.partition),
			container.NewVBox(widget.NewLabel("Resources per task (--gres)"), c.gres),
			container.NewVBox(widget.NewLabel("Time limit"), c.time)),
		c.msg, help)
	c.box = container.NewVBox(heading("Run on"), c.where, c.opts)
	for _, e := range entries {
		e.OnChanged = func(string) { c.check(); p.changed() }
		e.OnSubmitted = func(string) { widgets.Refocus(p.v.Window(), true) }
	}
	c.where.SetSelected(RunHere)
	widgets.SetLabel(c.msg, "")
	c.box.Hide()
	return c
}

// show offers the choice when the pipeline can run on a cluster.
func (c *clusterControls) show(pl *Pipeline) {
	if pl != nil && pl.RunCluster != nil {
		c.box.Show()
	} else {
		c.where.SetSelected(RunHere)
		c.box.Hide()
	}
	c.update()
}

func (c *clusterControls) update() {
	if c.onCluster() {
		c.opts.Show()
	} else {
		c.opts.Hide()
	}
	c.check()
}

func (c *clusterControls) onCluster() bool { return c.where.Selected == RunCluster && c.box.Visible() }

// options returns the cluster options of a request (nil: this machine),
// or what is wrong with them.
func (c *clusterControls) options() (*ClusterOptions, error) {
	if !c.onCluster() {
		return nil, nil
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(c.tasks.Text))
	return &ClusterOptions{Tasks: n, Partition: strings.TrimSpace(c.partition.Text),
		Gres: strings.TrimSpace(c.gres.Text), Time: strings.TrimSpace(c.time.Text)}, nil
}

// check validates the options beside them and returns the first error.
func (c *clusterControls) check() error {
	if !c.onCluster() {
		widgets.SetLabel(c.msg, "")
		return nil
	}
	var msgs []string
	if n, err := strconv.Atoi(strings.TrimSpace(c.tasks.Text)); err != nil || n < 1 {
		msgs = append(msgs, fmt.Sprintf("tasks %q: want a whole number, at least 1", c.tasks.Text))
	}
	if err := cluster.CheckOptions(strings.TrimSpace(c.partition.Text), strings.TrimSpace(c.gres.Text), strings.TrimSpace(c.time.Text)); err != nil {
		msgs = append(msgs, err.Error())
	}
	widgets.SetLabel(c.msg, strings.Join(msgs, "\n"))
	if len(msgs) > 0 {
		return errors.New(msgs[0])
	}
	return nil
}

// set sets a control by name ("run-on": RunHere or RunCluster, "tasks",
// "partition", "gres", "time"); ok is false for other names.
func (c *clusterControls) set(name, value string) (ok bool, err error) {
	switch name {
	case "run-on":
		if value != RunHere && value != RunCluster {
			return true, fmt.Errorf("run-on %q: want %q or %q", value, RunHere, RunCluster)
		}
		if value == RunCluster && !c.box.Visible() {
			return true, fmt.Errorf("%s cannot run on a cluster here (is sbatch on the PATH?)", c.p.cur.Name())
		}
		c.where.SetSelected(value)
	case "tasks":
		c.tasks.SetText(value)
	case "partition":
		c.partition.SetText(value)
	case "gres":
		c.gres.SetText(value)
	case "time":
		c.time.SetText(value)
	default:
		return false, nil
	}
	return true, nil
}
