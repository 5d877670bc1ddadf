package model

// Event is the change event of one setting (napari's layer.events.gamma):
// a view connects to the setting it shows and is called after each change
// of it, on the goroutine that made the change (the UI's). A setter that
// leaves the value as it was emits nothing.
type Event struct {
	obs  []observer
	next int
}

type observer struct {
	id int
	f  func()
}

// Connect has f called after every change and returns the function that
// disconnects it (a control dropped with its layer's panel calls it).
func (e *Event) Connect(f func()) (disconnect func()) {
	e.next++
	id := e.next
	e.obs = append(e.obs, observer{id, f})
	return func() {
		for i, o := range e.obs {
			if o.id == id {
				e.obs = append(e.obs[:i:i], e.obs[i+1:]...)
				return
			}
		}
	}
}

// emit calls the observers connected when it starts, in order.
func (e *Event) emit() {
	for _, o := range e.obs {
		o.f()
	}
}
