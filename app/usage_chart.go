package app

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
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

// chartColors are the colours of what the chart draws beside its bars: the window's
// theme's, so that a dark theme gets a dark chart.
type chartColors struct {
	Background, Text, Grid color.Color
}

// plotColors are gonum plot's own colours: black on white, a grey grid.
var plotColors = chartColors{Background: color.White, Text: color.Black, Grid: color.Gray{Y: 128}}

// themeChartColors are the colours of the app's theme as it shows now. On Fyne's
// goroutine.
func themeChartColors() chartColors {
	s := fyne.CurrentApp().Settings()
	th, variant := s.Theme(), s.ThemeVariant()
	return chartColors{
		Background: th.Color(theme.ColorNameBackground, variant),
		Text:       th.Color(theme.ColorNameForeground, variant),
		Grid:       th.Color(theme.ColorNameDisabled, variant),
	}
}

// drawUsageChart draws v as a chart of cost or tokens (m) per day, a bar for each day
// stacked by repository, on an image w×h pixels at dpi in colours cs (gonum's plot, with
// the fonts it embeds: the same figures give the same pixels).
func drawUsageChart(v usageView, m chartMetric, w, h, dpi int, cs chartColors) (image.Image, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("drawing the usage chart: no room (%d×%d pixels)", w, h)
	}
	p := plot.New()
	p.BackgroundColor = nil // the whole image is filled, beyond the plot's right edge too
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.LineStyle.Color, a.Tick.LineStyle.Color = cs.Text, cs.Text
		a.Label.TextStyle.Color, a.Tick.Label.Color = cs.Text, cs.Text
	}
	p.Legend.TextStyle.Color = cs.Text
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
	// The last day's label is centred under the last bar, at the plot's right edge: the
	// plot is drawn short of the image's edge by half of it, or it is cut.
	var last string
	for _, t := range ticks {
		if t.Label != "" {
			last = t.Label
		}
	}
	right := p.X.Tick.Label.Width(last) / 2
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
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = cs.Grid, cs.Grid
	p.Add(grid)
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(cs.Background))
	p.Draw(draw.Crop(draw.NewCanvas(c, width, height), 0, -right, 0, 0))
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
	colors  chartColors // the colours of the last drawing asked for: the theme's then
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
	c.drawn, c.colors = size, themeChartColors()
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
	n, v, m, size, cs := c.draws, *c.view, c.metric, c.drawn, c.colors
	scale := float32(1)
	if cv := fyne.CurrentApp().Driver().CanvasForObject(c); cv != nil {
		scale = cv.Scale()
	}
	w, h := int(size.Width*scale+0.5), int(size.Height*scale+0.5)
	dpi := int(chartDPI*scale + 0.5)
	go func() {
		img, err := drawUsageChart(v, m, w, h, dpi, cs)
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
func (r *usageChartRenderer) MinSize() fyne.Size { return fyne.NewSize(320, 200) }

// Refresh is part of fyne.WidgetRenderer: Fyne refreshes every widget when the theme
// changes, and the chart is drawn again in the new theme's colours.
func (r *usageChartRenderer) Refresh() {
	if themeChartColors() != r.c.colors {
		r.c.redraw(r.c.drawn, true)
	}
	r.c.img.Refresh()
}
func (r *usageChartRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.img} }
func (r *usageChartRenderer) Destroy()                     {}
