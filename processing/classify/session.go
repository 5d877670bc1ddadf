package classify

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// Inputs are a classification's data: the signal volume, the background
// (autofluorescence) volume of the same shape (nil: a one-channel
// network on the signal alone) and the candidates.
type Inputs struct {
	Signal, Background *volume.Volume
	Points             []points.Point
	// PointsName names the candidates' file in errors and reports.
	PointsName string
}

// Channels returns 2 with a background, else 1.
func (in Inputs) Channels() int {
	if in.Background != nil {
		return 2
	}
	return 1
}

// Session is a classification opened on its inputs: the model loaded and
// checked against the data, each candidate's cube placed. Opening reads
// the model and the volumes' headers, no voxel.
type Session struct {
	Cfg   Config
	In    Inputs
	Model *keras.Model
	Net   *resnet.Net
	Geo   Geometry
	// Starts holds each candidate's cuboid start (z, y, x) and Inside
	// whether the cuboid lies in the volume (else the candidate is
	// unknown).
	Starts [][3]int
	Inside []bool
	// Order lists the candidates inside the volume by their first plane
	// (then input order): the order cubes are extracted and classified.
	Order []int
	// Live: each batch's candidates are handed to the progress's sinks
	// as pipeline.Points, classes known, as they are classified.
	Live bool
	// norm is the channels' normalisation of the run under way.
	norm [2]Norm
}

// Open loads cfg.Model, checks it against the data (channels, cube depth,
// network depth; the error names the layer that does not fit) and places
// every candidate's cube.
func Open(cfg Config, in Inputs) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := openData(cfg, in)
	if err != nil {
		return nil, err
	}
	// The file says its depth (its layers' names, or its convolutions'
	// count); a depth given is a check, made in useModel.
	m, err := keras.Load(cfg.Model, 0)
	if err != nil {
		return nil, err
	}
	if err := s.useModel(m); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenModel is Open with a model already loaded (cfg.Model only names
// it).
func OpenModel(cfg Config, in Inputs, m *keras.Model) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := openData(cfg, in)
	if err != nil {
		return nil, err
	}
	if err := s.useModel(m); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenCubes opens a session that only cuts cubes (voxlab cubes): no
// model.
func OpenCubes(cfg Config, in Inputs) (*Session, error) {
	cfg.Model = "-"
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Model = ""
	return openData(cfg, in)
}

// openData checks the volumes and places every candidate's cube.
func openData(cfg Config, in Inputs) (*Session, error) {
	if in.Signal == nil {
		return nil, fmt.Errorf("classify: no signal volume")
	}
	info := in.Signal.Info
	if in.Background != nil && in.Background.Info.Shape != info.Shape {
		return nil, fmt.Errorf("classify: the signal %s is %v (z,y,x) but the background %s is %v: the two channels must have the same shape", in.Signal.Name, info.Shape, in.Background.Name, in.Background.Info.Shape)
	}
	for _, v := range []*volume.Volume{in.Signal, in.Background} {
		if v == nil {
			continue
		}
		if _, err := converter(v.Info.DType); err != nil {
			return nil, fmt.Errorf("classify %s: %w", v.Name, err)
		}
	}
	geo, err := NewGeometry(info.Shape, cfg.VoxelSize, cfg.NetworkVoxelSize, cfg.netZYX(), in.Channels())
	if err != nil {
		return nil, fmt.Errorf("classify %s: %w", in.Signal.Name, err)
	}
	s := &Session{Cfg: cfg, In: in, Geo: geo,
		Starts: make([][3]int, len(in.Points)), Inside: make([]bool, len(in.Points))}
	for i, p := range in.Points {
		s.Starts[i], s.Inside[i] = geo.Start([3]float64{p.Z, p.Y, p.X})
		if s.Inside[i] {
			s.Order = append(s.Order, i)
		}
	}
	slices.SortStableFunc(s.Order, func(a, b int) int { return s.Starts[a][0] - s.Starts[b][0] })
	return s, nil
}

// useModel checks a loaded model against the data and builds its
// network.
func (s *Session) useModel(m *keras.Model) error {
	cfg, in := s.Cfg, s.In
	depth, err := checkDepth(cfg.Model, cfg.NetworkDepth, m.Depth)
	if err != nil {
		return err
	}
	arch := cfg.arch(depth, in.Channels())
	if err := arch.Validate(); err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	if m.Input != ([4]int{}) && m.Input != arch.Input {
		return fmt.Errorf("model %s: it takes cubes of %dx%dx%d with %d channel(s) (height x width x depth), the data gives %dx%dx%d with %d: set the cube size the model was trained with%s",
			cfg.Model, m.Input[0], m.Input[1], m.Input[2], m.Input[3], arch.Input[0], arch.Input[1], arch.Input[2], arch.Input[3], channelsHint(m.Input[3], arch.Input[3]))
	}
	net, err := resnet.Build(arch, m.Weights)
	if err != nil {
		return fmt.Errorf("model %s (%s): %w", cfg.Model, m.Format, err)
	}
	s.Model, s.Net = m, net
	return nil
}

// checkDepth returns the network depth of a model whose file holds a
// network of depth found (0: its layers fit no depth) when asked is
// asked (0: none). The messages name the form's field, which is the
// command's flag too.
func checkDepth(model string, asked, found int) (int, error) {
	switch {
	case found == 0 && asked == 0:
		return 0, fmt.Errorf("model %s: its layers fit none of cellfinder's network depths (%s): set the network depth", model, depthList())
	case found == 0:
		// resnet.Build names the first layer that does not fit.
		return asked, nil
	case asked != 0 && asked != found:
		return 0, fmt.Errorf("model %s is a ResNet-%d (%d layers), but the network depth asked is %d: leave the network depth at auto (it is read from the model file) or set it to %d", model, found, found, asked, found)
	}
	return found, nil
}

func depthList() string {
	s := make([]string, len(resnet.Depths))
	for i, d := range resnet.Depths {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, ", ")
}

func channelsHint(model, data int) string {
	switch {
	case model == data:
		return ""
	case model == 2:
		return " (the model takes signal and background: give --background)"
	default:
		return " (the model takes the signal only: leave out --background)"
	}
}

// Unknown returns the number of candidates whose cube leaves the volume.
func (s *Session) Unknown() int { return len(s.In.Points) - len(s.Order) }

// NaN marks an unknown candidate's probability.
var unknownP = float32(math.NaN())
