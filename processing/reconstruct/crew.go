package reconstruct

import "sync"

// crew runs a function on every one of its workers at once, as often as
// it is asked, without allocating: each worker's goroutine body is made
// once, where a closure per round (gridrec runs two rounds for every 64
// projections of a slice) was garbage the heap kept until the CLI's soft
// memory limit, 7 MB over a run's plan (BENCHMARKS.md, "Reconstruction").
// A crew is not safe for concurrent use.
type crew struct {
	wg   sync.WaitGroup
	fn   func(w int)
	body []func()
}

// newCrew is a crew of n workers.
func newCrew(n int) *crew {
	c := &crew{}
	for w := range n {
		c.body = append(c.body, func() {
			defer c.wg.Done()
			c.fn(w)
		})
	}
	return c
}

// run calls fn(w) for every worker w, each on a goroutine of its own,
// and returns once all have returned. fn should be a func value made
// once (a method value kept in a field): making one per call allocates.
func (c *crew) run(fn func(w int)) {
	c.fn = fn
	c.wg.Add(len(c.body))
	for _, b := range c.body {
		go b()
	}
	c.wg.Wait()
	c.fn = nil
}
