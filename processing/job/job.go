package job

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
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

// PanicError is the error of a job whose function panicked: the program
// keeps running and the job fails with the panic value and stack.
type PanicError struct {
	Job   string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: internal error (please report it): %v", e.Job, e.Value)
}

// Start runs fn in a new goroutine under a child of parent, reporting to
// sinks. A panic in fn fails the job instead of crashing the program.
func Start(parent context.Context, name string, fn Func, sinks ...Sink) *Job {
	return start(parent, name, fn, nil, sinks)
}

func start(parent context.Context, name string, fn Func, now func() time.Time, sinks []Sink) *Job {
	ctx, cancel := context.WithCancel(parent)
	j := &Job{Name: name, cancel: cancel, done: make(chan struct{}), prog: newProgress(name, sinks, now)}
	go func() {
		defer close(j.done)
		defer cancel()
		err := safeRun(ctx, name, fn, j.prog)
		kind, err := classify(err, ctx)
		final := j.prog.finish(kind, err)
		j.mu.Lock()
		j.err, j.final = err, final
		j.mu.Unlock()
	}()
	return j
}

// classify turns a pipeline's error into the job's end: a cancellation
// (the pipeline's own, or any error once the job's context was cancelled,
// since it is then a consequence of stopping) becomes context.Canceled,
// unless it is a *Kept saying what the run left;
// anything else, a deadline included, is a failure.
func classify(err error, ctx context.Context) (Kind, error) {
	switch {
	case err == nil:
		return Finished, nil
	case errors.Is(err, context.Canceled):
		if _, kept := errors.AsType[*Kept](err); kept {
			return Cancelled, err
		}
		return Cancelled, context.Canceled
	case ctx != nil && errors.Is(ctx.Err(), context.Canceled):
		return Cancelled, context.Canceled
	default:
		return Failed, err
	}
}

func safeRun(ctx context.Context, name string, fn Func, p *Progress) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Job: name, Value: r, Stack: debug.Stack()}
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

// Wait waits for the job to end and returns its error: nil, the
// pipeline's error (a *PanicError for a panic), or context.Canceled. Every
// call returns the same value; the sinks saw it once, in the terminal
// event.
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
