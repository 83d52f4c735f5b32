package remote

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimiters bounds the per-user limiters kept; past it, the users whose
// bucket is full again (idle for a while) are forgotten.
const maxLimiters = 10000

// limiters are the per-user token buckets behind Options.Rate.
type limiters struct {
	rate  rate.Limit
	burst int
	mu    sync.Mutex
	users map[string]*rate.Limiter
}

func newLimiters(perSecond float64, burst int) *limiters {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &limiters{rate: rate.Limit(perSecond), burst: burst, users: map[string]*rate.Limiter{}}
}

// allow takes one request from user's bucket, or says how long until one
// would be there.
func (l *limiters) allow(user string, now time.Time) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	lim, ok := l.users[user]
	if !ok {
		if len(l.users) >= maxLimiters {
			for u, old := range l.users {
				if old.TokensAt(now) >= float64(l.burst) {
					delete(l.users, u)
				}
			}
		}
		lim = rate.NewLimiter(l.rate, l.burst)
		l.users[user] = lim
	}
	l.mu.Unlock()
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request costs nothing
		return false, d
	}
	return true, 0
}

// retryAfter sets the Retry-After header to d in whole seconds, at least 1.
func retryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(d.Seconds())))))
}
