package extract

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// waiting blocks until n reservations wait on b (an event, polled without
// a clock).
func waiting(b *Budget, n int) {
	for {
		b.mu.Lock()
		q := len(b.queue)
		b.mu.Unlock()
		if q == n {
			return
		}
		runtime.Gosched()
	}
}

// TestBudget: reservations take what is free, wait in turn for what is
// not, grow without waiting while they fit, and wait holding nothing when
// they do not; one over the whole budget is refused at once.
func TestBudget(t *testing.T) {
	ctx := t.Context()
	b := NewBudget(100)
	a, err := b.reserve(ctx, 60, 60)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *reservation)
	go func() {
		r, err := b.reserve(ctx, 50, 100)
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	waiting(b, 1)
	// One that would fit in what is free waits its turn behind it.
	if b.tryTake(10) {
		t.Fatal("tryTake jumped the queue")
	}
	a.release()
	r := <-got
	if b.InUse() != 50 {
		t.Fatalf("in use %d after the waiter got its 50", b.InUse())
	}
	// Growing within what is free takes it at once.
	if err := r.need(80); err != nil || r.n != 80 || b.InUse() != 80 {
		t.Fatalf("need(80) = %v: holds %d, in use %d", err, r.n, b.InUse())
	}
	r.release()

	// A reservation that cannot grow gives back what it holds and waits
	// for its most, so two growing ones never wait on each other.
	x, _ := b.reserve(ctx, 40, 90)
	y, _ := b.reserve(ctx, 40, 90)
	done := make(chan error)
	go func() { done <- x.need(90) }()
	waiting(b, 1)
	if b.InUse() != 40 {
		t.Fatalf("in use %d while x waits, want y's 40 alone", b.InUse())
	}
	y.release()
	if err := <-done; err != nil || x.n != 90 {
		t.Fatalf("x.need(90) = %v, holds %d", err, x.n)
	}
	x.release()
	if b.InUse() != 0 {
		t.Fatalf("in use %d after all released", b.InUse())
	}

	if _, err := b.reserve(ctx, 10, 101); !errors.Is(err, ErrOverBudget) {
		t.Errorf("reserve over the whole budget = %v, want ErrOverBudget", err)
	}

	// A waiter whose context ends leaves the queue, and those behind it
	// get their turn.
	full, _ := b.reserve(ctx, 100, 100)
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error)
	go func() { _, err := b.reserve(cctx, 100, 100); errc <- err }()
	waiting(b, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled waiter = %v", err)
	}
	waiting(b, 0)
	full.release()
	if b.InUse() != 0 {
		t.Errorf("in use %d", b.InUse())
	}
}

func TestFit(t *testing.T) {
	for _, c := range []struct{ w, h, most, ww, wh int }{
		{850, 1100, 16 << 20, 850, 1100},     // a letter page at 100 dpi: as it is
		{11112, 11112, 16 << 20, 4096, 4096}, // 8000 pt square at 100 dpi
		{100000, 10, 1000, 1000, 1},          // a side of at least a pixel
		{10, 100000, 1000, 1, 1000},
	} {
		w, h := fit(c.w, c.h, c.most)
		if w != c.ww || h != c.wh || w*h > max(c.most, c.w*c.h) {
			t.Errorf("fit(%d, %d, %d) = %d×%d, want %d×%d", c.w, c.h, c.most, w, h, c.ww, c.wh)
		}
	}
}
