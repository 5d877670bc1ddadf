package detect

import (
	"errors"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
)

// cpuOps are the Ops of the CPU backend: its buffers are host memory, so
// each operation checks them, takes their bytes and runs the kernel
// function (filterPlane, filterBall) on the backend's workers under the job bound
// to it (gpu.Bind).
type cpuOps struct{ be *gpu.CPUBackend }

// Plane runs the 2D stage on the host's cores; see Ops.
func (c cpuOps) Plane(src *gpu.Buffer, srcOff int64, work, mask *gpu.Buffer, maskOff int64, tiles *gpu.Buffer, tilesOff int64, p *PlaneParams) error {
	if err := checkPlane(checkHost, src, srcOff, work, mask, maskOff, tiles, tilesOff, p); err != nil {
		return err
	}
	err := filterPlane(mask.HostBytes()[maskOff:], tiles.HostBytes()[tilesOff:], work.HostBytes(), src.HostBytes()[srcOff:], p, c.be.Workers(), c.be.Begin(1))
	if errors.Is(err, errUnprepared) {
		return fmt.Errorf("detect plane: the work buffer %q holds no Gaussian weights for σ %g, radius %d: prepare it with prepareWork", work.Label(), p.Sigma, p.Radius)
	}
	return err
}

// Ball runs the ball filter on the host's cores; see Ops.
func (c cpuOps) Ball(dst, masks, tiles, weights *gpu.Buffer, p *BallParams) error {
	if err := checkBall(checkHost, dst, masks, tiles, weights, p); err != nil {
		return err
	}
	var t []byte
	if p.UseTiles {
		t = tiles.HostBytes()
	}
	workers := c.be.Workers()
	yLo, yHi := p.OffY, p.H-(p.KY-1-p.OffY)
	return filterBall(dst.HostBytes(), masks.HostBytes(), t, i32view(weights.HostBytes()[:4*p.KZ*p.KY*p.KX]), p, workers,
		c.be.Begin(int64(p.Count*max(yHi-yLo, 0))))
}

// checkHost is the rangeCheck of CPU buffers.
func checkHost(op string, b *gpu.Buffer, off int64, n int) (err error) {
	if b == nil {
		return fmt.Errorf("%s no buffer", op)
	}
	if off < 0 || off+int64(n) > b.Len() {
		return fmt.Errorf("%s %q: bytes [%d,%d) outside its %d bytes", op, b.Label(), off, off+int64(n), b.Len())
	}
	if _, err := gpu.CheckedHost(b, 0); err != nil {
		return fmt.Errorf("%s %w", op, err)
	}
	return nil
}
