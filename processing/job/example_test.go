package job_test

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/processing/job"
)

func ExampleRun() {
	sink := func(e job.Event) {
		switch e.Kind {
		case job.Progressed:
			fmt.Printf("%s %d/%d %s\n", e.Stage, e.Done, e.Total, e.Unit)
		case job.Partial:
			fmt.Println("block ready:", e.Partial)
		default:
			fmt.Println(e.Kind)
		}
	}
	err := job.Run(context.Background(), "sum", func(ctx context.Context, p *job.Progress) error {
		p.Stage("blocks", 2, "blocks")
		for i := range 2 {
			if err := ctx.Err(); err != nil {
				return err
			}
			p.Add(1)
			p.Partial(i)
		}
		return nil
	}, sink)
	fmt.Println("error:", err)
	// Output:
	// blocks 0/2 blocks
	// blocks 1/2 blocks
	// block ready: 0
	// blocks 2/2 blocks
	// block ready: 1
	// finished
	// error: <nil>
}

func ExampleQueue() {
	q := job.NewQueue(context.Background(), nil)
	work := func(ctx context.Context, p *job.Progress) error { return nil }
	a := q.Submit("dezing scan1", "cuda:0", work)
	b := q.Submit("dezing scan2", "cuda:0", work) // waits for a
	a.Wait()
	b.Wait()
	for _, e := range q.Entries() {
		fmt.Println(e.Name, e.State)
	}
	// Output:
	// dezing scan1 finished
	// dezing scan2 finished
}
