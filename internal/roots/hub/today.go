package hub

import (
	"sync"
	"time"

	"github.com/segwi/segwi/runs"
)

// today is what the runs created today used, for the tray's tooltip: the day's runs as
// their records say (runs.UsageOfDay), read again only when a run ended or the day
// changed, never for a snapshot, so that the tray neither reads the runs index at each
// change nor holds thousands of summaries; the runs going are counted by their own
// figures, in memory, at each snapshot (runs.DayUsage.Row).
type today struct {
	mu   sync.Mutex
	day  runs.DayUsage
	read bool // day was read
}

// readToday reads the day's runs from the records in the core's state folder and returns
// when the day ends. It runs on the hub's Run, not on the tray's UI.
func (h *Hub) readToday() time.Time {
	d, err := runs.UsageOfDay(h.core.StateDir(), time.Now())
	if err != nil {
		h.opts.Log.Printf("reading today's usage: %v", err)
	}
	h.today.mu.Lock()
	h.today.day, h.today.read = d, err == nil
	h.today.mu.Unlock()
	return d.End
}

// todayAfter reads the day's runs again when events tells that a run ended (its record
// now holds all it used), that events were missed, or that the day changed since the last
// reading.
func (h *Hub) todayAfter(events []runs.Event) {
	h.today.mu.Lock()
	stale := !h.today.read || !time.Now().Before(h.today.day.End)
	h.today.mu.Unlock()
	for _, e := range events {
		if e.Type == runs.EventDropped || e.Type == runs.EventState && e.State != nil && e.State.To.Final() {
			stale = true
		}
	}
	if stale {
		h.readToday()
	}
}

// todayRow is the day's row of `segwi usage --by day`, live the runs going; zero before
// the day was read.
func (h *Hub) todayRow(live []runs.Info) runs.UsageRow {
	h.today.mu.Lock()
	defer h.today.mu.Unlock()
	if !h.today.read {
		return runs.UsageRow{}
	}
	return h.today.day.Row(live...)
}
