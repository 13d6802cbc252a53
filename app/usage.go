package app

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// The Usage window's reach.
const (
	usageDays    = 30 // the days charted: today and the 29 before it, local time
	usageApart   = 4  // the costliest repositories charted apart; the others are one series
	usageTopRuns = 10 // the costliest runs listed
)

// usageOther names the series of the repositories not charted apart.
const usageOther = "other"

// usageView is what the Usage window shows: the cost of each day of the last usageDays by
// repository, and the costliest runs of those days. It is computed from the runs index
// (record.Summaries) with record.SumUsage, as `segwi usage` is.
type usageView struct {
	Days   []time.Time   // the days charted, local midnights, oldest first
	Series []usageSeries // the repositories, costliest first, "other" last
	// ByRuntime are the runtimes, as Series are the repositories.
	ByRuntime []usageSeries
	Top       []record.Summary
	Total     record.UsageRow // what every run of those days used
}

// usageSeries is one repository's cost and tokens on each day of a usageView.
type usageSeries struct {
	Name   string
	Cost   []float64 // US dollars, by day, as usageView.Days
	Tokens []float64 // all tokens (input, output, cache), by day; none from runs recorded before usage
}

// computeUsage is what the runs sums created in the usageDays ending on now's day (in loc)
// used, by repository (named as the settings name them, repos) and by runtime.
func computeUsage(sums []record.Summary, now time.Time, loc *time.Location, repos []settings.Repository) usageView {
	y, m, d := now.In(loc).Date()
	since := time.Date(y, m, d-(usageDays-1), 0, 0, 0, 0, loc)
	v := usageView{}
	day := map[string]int{}
	for i := range usageDays {
		t := time.Date(y, m, d-(usageDays-1)+i, 0, 0, 0, 0, loc)
		v.Days = append(v.Days, t)
		day[t.Format(time.DateOnly)] = i
	}
	// The runs of the days charted; not those dated after today, by a clock set back when
	// they started: the note's total counts what the chart shows.
	for _, s := range sums {
		if _, ok := day[s.UsageKey(record.UsageByDay, loc)]; ok && !s.Created.Before(since) {
			v.Top = append(v.Top, s)
		}
	}
	v.Total = record.SumUsage(v.Top, since, record.UsageByRepository, loc).Total
	v.Series = stackUsage(v.Top, since, day, record.UsageByRepository, loc, func(k string) string { return settings.CheckoutName(k, repos) })
	v.ByRuntime = stackUsage(v.Top, since, day, record.UsageByRuntime, loc, visible.Escape)
	slices.SortFunc(v.Top, func(a, b record.Summary) int {
		ua, _ := a.Used()
		ub, _ := b.Used()
		return cmp.Or(cmp.Compare(ub.CostUSD, ua.CostUSD), cmp.Compare(ub.Tokens(), ua.Tokens()), b.Created.Compare(a.Created))
	})
	v.Top = slices.Clip(v.Top[:min(len(v.Top), usageTopRuns)])
	return v
}

// stackUsage is the cost and tokens of each day (day: a local date's index) of the runs
// of sums, all created on those days since since, a series for each group by by (named by
// name), the costliest first: usageApart of them, the others one "other" series.
func stackUsage(sums []record.Summary, since time.Time, day map[string]int, by record.UsageBy, loc *time.Location, name func(string) string) []usageSeries {
	rows := record.SumUsage(sums, since, by, loc).Rows
	var out []usageSeries
	series := map[string]int{} // the series of each group's key
	apart := len(rows)
	if apart > usageApart+1 { // one "other" group is charted by its name
		apart = usageApart
	}
	for i, r := range rows {
		if i < apart {
			series[r.Key] = i
			out = append(out, usageSeries{Name: name(r.Key), Cost: make([]float64, len(day)), Tokens: make([]float64, len(day))})
		} else {
			series[r.Key] = apart
		}
	}
	if len(rows) > apart {
		out = append(out, usageSeries{Name: usageOther, Cost: make([]float64, len(day)), Tokens: make([]float64, len(day))})
	}
	for _, s := range sums {
		i := day[s.UsageKey(record.UsageByDay, loc)]
		u, _ := s.Used()
		ser := &out[series[s.UsageKey(by, loc)]]
		ser.Cost[i] += u.CostUSD
		ser.Tokens[i] += float64(u.Tokens())
	}
	return out
}

// usageWindow shows the Usage window: a chart of the cost of each of the last 30 days,
// stacked by repository (usageChart), and the costliest runs of those days, a click on one
// opening its run window. It reads the runs index and draws the chart off Fyne's goroutine.
type usageWindow struct {
	win      fyne.Window
	stateDir string
	repos    func() []settings.Repository
	open     func(id string)
	now      func() time.Time

	// On Fyne's goroutine:
	view   usageView
	reads  int // reloads asked for: only the last one's figures are shown
	shown  int // the reload whose figures show
	note   *widget.Label
	chart  *usageChart
	metric *widget.RadioGroup // what the chart shows: cost or tokens
	group  *widget.RadioGroup // what the bars are stacked by: repository or runtime, shown once runs ran on several
	list   *widget.List
}

// newUsageWindow builds the Usage window and starts reading the runs. On Fyne's goroutine.
// now is the clock whose day ends the chart.
func newUsageWindow(a fyne.App, stateDir string, repos func() []settings.Repository, open func(id string), now func() time.Time) *usageWindow {
	u := &usageWindow{stateDir: stateDir, repos: repos, open: open, now: now}
	u.note = widget.NewLabel("Reading the runs…")
	u.note.Wrapping = fyne.TextWrapWord
	u.chart = newUsageChart()
	u.chart.failed = func(err error) { u.note.SetText(u.note.Text + " The chart could not be drawn: " + err.Error()) }
	u.list = widget.NewList(func() int { return len(u.view.Top) }, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(u.view.Top) {
			o.(*widget.Label).SetText(usageRunLine(u.view.Top[i], u.repos()))
		}
	})
	u.list.OnSelected = func(i widget.ListItemID) {
		u.list.UnselectAll()
		if i < len(u.view.Top) {
			u.open(u.view.Top[i].ID)
		}
	}
	top := widget.NewLabel(fmt.Sprintf("The %d costliest runs of these days. Click one to see it.", usageTopRuns))
	split := container.NewVSplit(u.chart, container.NewBorder(top, nil, nil, nil, u.list))
	split.Offset = 0.6
	refresh := widget.NewButton("Refresh", u.reload)
	u.metric = widget.NewRadioGroup([]string{string(chartCost), string(chartTokens)}, func(m string) {
		if m != "" {
			u.chart.setMetric(chartMetric(m))
		}
	})
	u.metric.Horizontal, u.metric.Required = true, true
	u.metric.SetSelected(string(chartCost))
	u.group = widget.NewRadioGroup([]string{usageByRepository, usageByRuntime}, func(string) { u.showChart() })
	u.group.Horizontal, u.group.Required = true, true
	u.group.SetSelected(usageByRepository)
	u.group.Hide()
	u.win = a.NewWindow("segwi: usage")
	bar := container.NewBorder(nil, nil, nil, container.NewHBox(u.group, u.metric, refresh), u.note)
	u.win.SetContent(container.NewBorder(bar, nil, nil, nil, split))
	u.win.Resize(fyne.NewSize(820, 640))
	u.reload()
	return u
}

// reload reads the runs again and computes what the window shows, on a goroutine of its
// own, and shows it once computed. On Fyne's goroutine.
func (u *usageWindow) reload() {
	u.reads++
	read := u.reads
	repos, now := u.repos(), u.now()
	go func() {
		sums, damaged, err := record.Summaries(u.stateDir)
		v := computeUsage(sums, now, time.Local, repos)
		onUI(func() {
			if read == u.reads { // else a later reload is under way
				u.show(v, len(damaged), err)
				u.shown = read
			}
		})
	}()
}

// show shows v, and what could not be read. On Fyne's goroutine.
func (u *usageWindow) show(v usageView, damaged int, err error) {
	u.view = v
	if err != nil {
		u.note.SetText(fmt.Sprintf("The runs could not be listed: %v", err))
	} else {
		u.note.SetText(usageNote(v, damaged))
	}
	if len(v.ByRuntime) > 1 {
		u.group.Show()
	} else {
		u.group.Hide()
	}
	u.showChart()
	u.list.Refresh()
}

// The groupings of the chart, as its switch names them.
const (
	usageByRepository = "By repository"
	usageByRuntime    = "By runtime"
)

// showChart shows the chart of the figures shown, stacked as the switch says. On Fyne's
// goroutine.
func (u *usageWindow) showChart() {
	if u.shown == 0 && u.view.Days == nil {
		return // nothing read yet
	}
	v := u.view
	if u.group.Visible() && u.group.Selected == usageByRuntime {
		v.Series = v.ByRuntime
	}
	u.chart.setView(v)
}

// usageNote says what the window's figures are: "$12.34 over 56 runs in the last 30 days,
// by the day each run started: Claude Code's own estimate at list prices, not a bill."
func usageNote(v usageView, damaged int) string {
	t := v.Total
	note := fmt.Sprintf("$%.2f over %s in the last %d days, by the day each run started: the runtime's own estimate at list prices (Claude Code's), not a bill.",
		t.CostUSD, countRuns(t.Runs), usageDays)
	if t.Runs == 0 {
		note = fmt.Sprintf("No runs in the last %d days.", usageDays)
	}
	if t.CostOnly > 0 {
		note += fmt.Sprintf(" %d of these runs were recorded before segwi kept usage: their cost counts, their tokens do not.", t.CostOnly)
	}
	if damaged > 0 {
		note += fmt.Sprintf(" %d run records could not be read and are left out: the run history names them.", damaged)
	}
	return note
}

// usageRunLine is a run's line in the Usage window: "2026-12-03 14:05 · web · $1.2345 ·
// 1,234,567 tokens · fix the login".
func usageRunLine(s record.Summary, repos []settings.Repository) string {
	u, full := s.Used()
	tokens := fmt.Sprintf("%s tokens", groupDigits(u.Tokens()))
	if !full {
		tokens = "tokens not recorded"
	}
	line := fmt.Sprintf("%s · %s · $%.4f · %s", s.Created.Local().Format("2006-01-02 15:04"),
		visible.Escape(settings.CheckoutName(summaryRepository(s), repos)), u.CostUSD, tokens)
	if p := visible.FirstLine(s.Task, 80); p != "" {
		line += " · " + visible.Escape(p)
	}
	return line
}

// groupDigits writes n with its thousands apart: 1,234,567.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Show shows and focuses the window.
func (u *usageWindow) Show() {
	u.win.Show()
	u.win.RequestFocus()
}
