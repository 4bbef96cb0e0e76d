// Package stallhttp bounds the time an HTTP exchange may go without
// progress: a Transport cancels a request whose connection, response
// header, request body or response body makes no progress for a given
// time, and fails it with an error wrapping ErrStalled. Progress is a
// byte of the request body taken by the connection, the response header,
// or a byte of the response body: a slow exchange that keeps moving is
// never cut, a silent one always is.
package stallhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trevni-go/trevni/remote"
)

// ErrStalled is wrapped by the error of a request, or of a read of its
// response's body, that made no progress for the Transport's Stall.
var ErrStalled = errors.New("the store stalled")

// Error is the error of a stalled exchange. It is a net.Error whose
// Timeout and Temporary are true, so that clients that retry timeouts
// (the AWS SDK, the Azure SDK, the GCS driver's uploads) retry it.
type Error struct {
	// Request names the request: its method and URL (without query),
	// for the errors of a response body; "" for the error of the round
	// trip, which http.Client wraps in a *url.Error naming it already.
	Request string
	// What says what did not come: "no response header", ...
	What  string
	Stall time.Duration
}

func (e *Error) Error() string {
	s := ErrStalled.Error() + ": " + e.What + " for " + e.Stall.String()
	if e.Request != "" {
		s = e.Request + ": " + s
	}
	return s
}

// Unwrap returns ErrStalled, and remote.ErrTimeout (the front door's
// trevni.ErrTimeout), so that a program of the front door tells a stalled
// store from other failures as it tells a stalled HTTP server, with no
// import of this module's packages.
func (e *Error) Unwrap() []error { return []error{ErrStalled, remote.ErrTimeout} }

// Timeout is true: a stall is a timeout.
func (e *Error) Timeout() bool { return true }

// Temporary is true: a stall may pass.
func (e *Error) Temporary() bool { return true }

// Transport is an http.RoundTripper that bounds the time each exchange may
// go without progress to Stall.
type Transport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Stall is the longest time without progress; 0 or less is none
	// (requests go to Base as they are).
	Stall time.Duration
}

// Wrap returns a Transport over base with stall, or base itself when
// stall is 0 or less.
func Wrap(base http.RoundTripper, stall time.Duration) http.RoundTripper {
	if stall <= 0 {
		return base
	}
	return &Transport{Base: base, Stall: stall}
}

// exchange is the watch over one request and its response.
type exchange struct {
	stall  time.Duration
	start  time.Time    // the monotonic base of last
	last   atomic.Int64 // nanoseconds from start to the latest progress
	state  atomic.Int32 // one of the states below
	sent   atomic.Int64 // request body bytes taken
	cancel context.CancelFunc
	mu     sync.Mutex // guards timer against its own callback
	timer  *time.Timer
}

// The states of an exchange.
const (
	waiting  int32 = iota // for the header (the request body may be sent)
	reading               // the response body
	finished              // the body ended or was closed: no more watch
	stalled               // the watch fired and cancelled the request
)

// touch records progress.
func (x *exchange) touch() { x.last.Store(int64(time.Since(x.start))) }

// check runs when the timer fires: the exchange stalled if there was no
// progress for x.stall, and the timer is set again for the rest
// otherwise.
func (x *exchange) check() {
	idle := time.Since(x.start) - time.Duration(x.last.Load())
	if idle < x.stall {
		x.mu.Lock()
		if s := x.state.Load(); s == waiting || s == reading {
			x.timer.Reset(x.stall - idle)
		}
		x.mu.Unlock()
		return
	}
	for {
		s := x.state.Load()
		if s != waiting && s != reading {
			return
		}
		if x.state.CompareAndSwap(s, stalled) {
			x.cancel()
			return
		}
	}
}

// finish ends the watch, once the exchange is over.
func (x *exchange) finish() {
	for {
		s := x.state.Load()
		if s == finished || s == stalled || x.state.CompareAndSwap(s, finished) {
			break
		}
	}
	x.mu.Lock()
	x.timer.Stop()
	x.mu.Unlock()
	x.cancel()
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.Stall <= 0 {
		return base.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	x := &exchange{stall: t.Stall, start: time.Now(), cancel: cancel}
	x.mu.Lock()
	x.timer = time.AfterFunc(t.Stall, x.check)
	x.mu.Unlock()
	out := req.WithContext(ctx)
	var body *requestBody
	if req.Body != nil && req.Body != http.NoBody {
		body = &requestBody{x: x, rc: req.Body}
		out.Body = body
	}
	resp, err := base.RoundTrip(out)
	if err != nil {
		fired := x.state.Load() == stalled
		x.finish()
		if fired {
			what := "no response header"
			if body != nil && !body.done.Load() {
				what = fmt.Sprintf("the server took no byte of the request body (after %d bytes)", x.sent.Load())
			}
			return nil, &Error{What: what, Stall: t.Stall}
		}
		return nil, err
	}
	x.touch()
	if !x.state.CompareAndSwap(waiting, reading) {
		// It stalled just as the header came: the body fails to read.
		x.finish()
	}
	resp.Body = &responseBody{x: x, rc: resp.Body, method: req.Method, url: req.URL}
	return resp, nil
}

// requestBody reports the bytes of a request body that the connection
// takes as progress.
type requestBody struct {
	x    *exchange
	rc   io.ReadCloser
	done atomic.Bool // read to its end
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.x.sent.Add(int64(n))
		b.x.touch()
	}
	if err == io.EOF {
		b.done.Store(true)
	}
	return n, err
}

func (b *requestBody) Close() error { return b.rc.Close() }

// responseBody reports the bytes of a response body as progress, ends the
// watch when it ends or is closed, and turns the failure of a stalled
// read into an *Error.
type responseBody struct {
	x      *exchange
	rc     io.ReadCloser
	method string
	url    *url.URL
	n      int64
}

func (b *responseBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.n += int64(n)
		b.x.touch()
	}
	if err != nil {
		if b.x.state.Load() == stalled {
			return n, b.stallError()
		}
		if err == io.EOF {
			b.x.finish()
		}
	}
	return n, err
}

// stallError describes the stall of the response body.
func (b *responseBody) stallError() error {
	u, _, _ := strings.Cut(b.url.Redacted(), "?")
	return &Error{Request: b.method + " " + u, What: fmt.Sprintf("no byte of the response body (after %d bytes)", b.n), Stall: b.x.stall}
}

func (b *responseBody) Close() error {
	err := b.rc.Close()
	b.x.finish()
	return err
}
