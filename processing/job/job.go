package job

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Func is a pipeline run as a job. It must check ctx between blocks and
// return ctx.Err() promptly when it is cancelled, after removing any
// partial output.
type Func func(ctx context.Context, p *Progress) error

// Job is a pipeline running in its own goroutine.
type Job struct {
	Name   string
	cancel context.CancelFunc
	done   chan struct{}
	prog   *Progress

	mu    sync.Mutex
	err   error
	final Event
}

// Start runs fn in a new goroutine under a child of parent, reporting to
// sinks. A panic in fn fails the job instead of crashing the program.
func Start(parent context.Context, name string, fn Func, sinks ...Sink) *Job {
	ctx, cancel := context.WithCancel(parent)
	j := &Job{Name: name, cancel: cancel, done: make(chan struct{}), prog: newProgress(name, sinks)}
	go func() {
		defer close(j.done)
		defer cancel()
		err := safeRun(ctx, fn, j.prog)
		kind := Finished
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) || (ctx.Err() != nil && errors.Is(err, ctx.Err())):
			kind, err = Cancelled, context.Canceled
		default:
			kind = Failed
		}
		final := j.prog.finish(kind, err)
		j.mu.Lock()
		j.err, j.final = err, final
		j.mu.Unlock()
	}()
	return j
}

func safeRun(ctx context.Context, fn Func, p *Progress) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report it): %v", r)
		}
	}()
	return fn(ctx, p)
}

// Run runs fn as a job and waits for it.
func Run(ctx context.Context, name string, fn Func, sinks ...Sink) error {
	return Start(ctx, name, fn, sinks...).Wait()
}

// Cancel asks the job to stop. It returns at once; Wait waits for the stop.
func (j *Job) Cancel() { j.cancel() }

// Done is closed when the job has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait waits for the job to end and returns its error: nil, a wrapped
// pipeline error, or context.Canceled.
func (j *Job) Wait() error {
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Progress returns the latest progress state; after the job ended it is
// the final event.
func (j *Job) Progress() Event {
	select {
	case <-j.done:
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.final
	default:
		return j.prog.Snapshot()
	}
}
