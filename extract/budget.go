package extract

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// ErrOverBudget means a file would need more memory to extract than the
// whole of the extraction budget (Budget): it is skipped, not waited for.
var ErrOverBudget = errors.New("extract: over the memory budget")

// DefaultBudget is the process's extraction budget: 512 MiB, or half the
// Go runtime's soft memory limit when that is lower, but never less than
// one PDF of the usual size limit may take (so a low limit makes
// extractions wait for each other rather than skips files).
const DefaultBudget = 512 << 20

// A Budget is memory that extractions draw from, shared by however many
// run at once: File reserves what a file may cost before reading it (its
// size and its format's bound), and gives it back when done; a file
// whose cost is not free waits for it, in turn. So a vault of files made
// to cost the most costs at most the budget, with any number of workers.
//
// A PDF starts with a small reservation and grows it as the pure-Go
// reader decodes streams and gathers glyphs; a reservation that cannot
// grow at once is given back whole and waited for at its largest (the
// PDF engine's bound), so no two extractions wait on each other holding
// memory. A Budget is safe for concurrent use.
type Budget struct {
	mu    sync.Mutex
	total int64
	used  int64
	queue []*waiter // in the order they came
}

type waiter struct {
	n     int64
	ready chan struct{}
}

// NewBudget is a budget of total bytes.
func NewBudget(total int64) *Budget { return &Budget{total: total} }

var process struct {
	once sync.Once
	b    *Budget
}

// processBudget is the budget of an Options without one: DefaultBudget,
// or half the soft memory limit (--memory-limit) when that is less, but
// room for a PDF of 64 MiB at least.
func processBudget() *Budget {
	process.once.Do(func() {
		total := int64(DefaultBudget)
		if limit := debug.SetMemoryLimit(-1); limit/2 < total {
			total = max(limit/2, 64<<20+pdfMost+64<<20)
		}
		process.b = NewBudget(total)
	})
	return process.b
}

// Total is the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// take reserves n bytes, waiting for them in turn; n over the whole
// budget is ErrOverBudget, and an ended ctx its error.
func (b *Budget) take(ctx context.Context, n int64) error {
	if n > b.total {
		return fmt.Errorf("%w: reading it may take %d MiB, over the %d MiB that extraction may use at once", ErrOverBudget, n>>20, b.total>>20)
	}
	b.mu.Lock()
	if len(b.queue) == 0 && b.used+n <= b.total {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.queue = append(b.queue, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.used -= n
			b.grant()
		default:
			for i, q := range b.queue {
				if q == w {
					b.queue = append(b.queue[:i], b.queue[i+1:]...)
					break
				}
			}
			b.grant() // those behind it may fit now
		}
		return ctx.Err()
	}
}

// tryTake reserves n bytes if they are free now and nobody waits.
func (b *Budget) tryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) > 0 || b.used+n > b.total {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes and lets the waiters that now fit in, in turn.
func (b *Budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.grant()
}

func (b *Budget) grant() {
	for len(b.queue) > 0 && b.used+b.queue[0].n <= b.total {
		w := b.queue[0]
		b.queue = b.queue[1:]
		b.used += w.n
		close(w.ready)
	}
}

// InUse is how many bytes are reserved now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// reservation is what one extraction holds of a budget: n bytes, at most
// most.
type reservation struct {
	b       *Budget
	ctx     context.Context
	n, most int64
}

// reserve takes n bytes of b for an extraction that may grow to most.
func (b *Budget) reserve(ctx context.Context, n, most int64) (*reservation, error) {
	n = min(n, most)
	if most > b.total {
		return nil, fmt.Errorf("%w: reading it may take %d MiB, over the %d MiB that extraction may use at once", ErrOverBudget, most>>20, b.total>>20)
	}
	if err := b.take(ctx, n); err != nil {
		return nil, err
	}
	return &reservation{b: b, ctx: ctx, n: n, most: most}, nil
}

// need makes the reservation at least n bytes (at most its most): it
// takes the difference if it is free now, else gives back what it holds
// and waits for its most, holding nothing while it waits.
func (r *reservation) need(n int64) error {
	n = min(n, r.most)
	if n <= r.n {
		return nil
	}
	if r.b.tryTake(n - r.n) {
		r.n = n
		return nil
	}
	r.b.give(r.n)
	r.n = 0
	if err := r.b.take(r.ctx, r.most); err != nil {
		return err
	}
	r.n = r.most
	return nil
}

// release gives the reservation back.
func (r *reservation) release() {
	r.b.give(r.n)
	r.n = 0
}
