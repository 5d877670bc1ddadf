package main

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestNoCleanUpQueuedOnQuit: once dropStopHook has run, the lifecycle
// has nothing to queue when the event loop ends (OnStopped is nil), so
// Fyne 2.7.1's quit cannot hang on it (dropStopHook says how). Fyne's
// test app has the same lifecycle type as its GLFW app; the hook is set
// here first, as Fyne's app constructor sets it.
func TestNoCleanUpQueuedOnQuit(t *testing.T) {
	a := test.NewTempApp(t)
	lc, ok := a.Lifecycle().(interface {
		SetOnStoppedHookExecuted(func())
		OnStopped() func()
	})
	if !ok {
		t.Fatalf("Fyne's lifecycle (%T) has no SetOnStoppedHookExecuted: dropStopHook does nothing, see whether its quit still queues a clean-up", a.Lifecycle())
	}
	lc.SetOnStoppedHookExecuted(func() {})
	if lc.OnStopped() == nil {
		t.Fatal("a clean-up hook set, yet OnStopped is nil: the check below would prove nothing")
	}
	dropStopHook(a)
	if lc.OnStopped() != nil {
		t.Error("after dropStopHook the lifecycle still queues a clean-up when the loop ends")
	}
}
