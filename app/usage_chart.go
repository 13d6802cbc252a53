package app

import (
	"fmt"
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// chartDPI is the resolution the chart is drawn at on a canvas of scale 1: its text is
// as large as the window's.
const chartDPI = 96

// chartMetric is what the chart shows per day.
type chartMetric string

// The chart's metrics, as its switch names them.
const (
	chartCost   chartMetric = "Cost"
	chartTokens chartMetric = "Tokens"
)

// drawUsageChart draws v as a chart of cost or tokens (m) per day, a bar for each day
// stacked by repository, on an image w×h pixels at dpi (gonum's plot, with the fonts it
// embeds: the same figures give the same pixels).
func drawUsageChart(v usageView, m chartMetric, w, h, dpi int) (image.Image, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("drawing the usage chart: no room (%d×%d pixels)", w, h)
	}
	p := plot.New()
	p.Y.Label.Text = "US dollars"
	figures := func(s usageSeries) []float64 { return s.Cost }
	if m == chartTokens {
		p.Y.Label.Text = "millions of tokens"
		figures = func(s usageSeries) []float64 {
			mt := make([]float64, len(s.Tokens))
			for i, t := range s.Tokens {
				mt[i] = t / 1e6
			}
			return mt
		}
	}
	series := make([][]float64, len(v.Series))
	for i, s := range v.Series {
		series[i] = figures(s)
	}
	p.Y.Min = 0
	p.X.Min, p.X.Max = -0.5, float64(len(v.Days))-0.5
	var ticks []plot.Tick
	for i, d := range v.Days {
		t := plot.Tick{Value: float64(i)}
		if (len(v.Days)-1-i)%7 == 0 { // today and every week before it
			t.Label = d.Format("Jan 2")
		}
		ticks = append(ticks, t)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	width := vg.Length(w) / vg.Length(dpi) * vg.Inch
	height := vg.Length(h) / vg.Length(dpi) * vg.Inch
	bar := width * 0.8 / vg.Length(max(len(v.Days), 1)) * 0.7
	highest := 0.0
	var below *plotter.BarChart
	for i, s := range v.Series {
		b, err := plotter.NewBarChart(plotter.Values(series[i]), bar)
		if err != nil {
			return nil, fmt.Errorf("drawing the usage chart of %s: %w", s.Name, err)
		}
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(i)
		if below != nil {
			b.StackOn(below)
		}
		p.Add(b)
		p.Legend.Add(s.Name, b)
		below = b
	}
	for d := range v.Days {
		sum := 0.0
		for _, s := range series {
			sum += s[d]
		}
		highest = math.Max(highest, sum)
	}
	p.Y.Max = highest * 1.15 // room for the legend
	if highest == 0 {
		p.Y.Max = 1
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	c := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))
	p.Draw(draw.NewCanvas(c, width, height))
	return c.Image(), nil
}

// usageChart shows a usageView's chart at the size it is given: it draws the chart again,
// off Fyne's goroutine, when its size or its figures change, one drawing at a time (a
// window dragged larger asks for many sizes: the last one asked is drawn next).
type usageChart struct {
	widget.BaseWidget
	// On Fyne's goroutine:
	img     *canvas.Image
	view    *usageView
	metric  chartMetric
	drawn   fyne.Size   // the size of the last drawing asked for
	draws   int         // drawings asked for: only the last one's image is shown
	shown   int         // the drawing shown
	drawing bool        // a drawing is under way
	failed  func(error) // told when a drawing fails
}

func newUsageChart() *usageChart {
	c := &usageChart{img: canvas.NewImageFromImage(nil), metric: chartCost}
	c.img.FillMode = canvas.ImageFillStretch
	c.img.ScaleMode = canvas.ImageScalePixels
	c.ExtendBaseWidget(c)
	return c
}

// setView shows v's chart. On Fyne's goroutine.
func (c *usageChart) setView(v usageView) {
	c.view = &v
	c.redraw(c.Size(), true)
}

// setMetric shows the chart of m. On Fyne's goroutine.
func (c *usageChart) setMetric(m chartMetric) {
	if m != c.metric {
		c.metric = m
		c.redraw(c.Size(), true)
	}
}

// redraw asks for the chart at size, again if again is set, and draws it unless a
// drawing is under way (which draws the last one asked for when it ends). On Fyne's
// goroutine.
func (c *usageChart) redraw(size fyne.Size, again bool) {
	if c.view == nil || size.Width < 1 || size.Height < 1 || (size == c.drawn && !again) {
		return
	}
	c.drawn = size
	c.draws++
	c.draw()
}

// draw draws the chart of the last drawing asked for, unless one is under way. On Fyne's
// goroutine.
func (c *usageChart) draw() {
	if c.drawing || c.shown == c.draws {
		return
	}
	c.drawing = true
	n, v, m, size := c.draws, *c.view, c.metric, c.drawn
	scale := float32(1)
	if cv := fyne.CurrentApp().Driver().CanvasForObject(c); cv != nil {
		scale = cv.Scale()
	}
	w, h := int(size.Width*scale+0.5), int(size.Height*scale+0.5)
	dpi := int(chartDPI*scale + 0.5)
	go func() {
		img, err := drawUsageChart(v, m, w, h, dpi)
		onUI(func() {
			c.drawing = false
			c.shown = n
			if err != nil && c.failed != nil {
				c.failed(err)
			} else if err == nil {
				c.img.Image = img
				c.img.Refresh()
			}
			c.draw() // a later one asked for meanwhile
		})
	}()
}

// CreateRenderer is part of fyne.Widget.
func (c *usageChart) CreateRenderer() fyne.WidgetRenderer {
	return &usageChartRenderer{c: c}
}

type usageChartRenderer struct{ c *usageChart }

func (r *usageChartRenderer) Layout(size fyne.Size) {
	r.c.img.Resize(size)
	r.c.redraw(size, false)
}
func (r *usageChartRenderer) MinSize() fyne.Size           { return fyne.NewSize(320, 200) }
func (r *usageChartRenderer) Refresh()                     { r.c.img.Refresh() }
func (r *usageChartRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.img} }
func (r *usageChartRenderer) Destroy()                     {}
