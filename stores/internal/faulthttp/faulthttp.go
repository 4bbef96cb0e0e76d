// Package faulthttp makes the test servers of object stores misbehave as
// real ones sometimes do, on ranged reads (a connection dropped mid-body,
// a 500, a body shorter than announced, a stall) and on the requests of
// uploads (a 503, a 429, a connection dropped mid-request, an answer
// lost after the store did what was asked), and counts what they answer.
// It is for tests only: internal/s3server and internal/gcsserver put an
// Injector in front of their fakes.
package faulthttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is a way a ranged read goes wrong.
type Fault int

// The faults an Injector makes of ranged reads.
const (
	// Drop sends the header and half of the body, then closes the
	// connection.
	Drop Fault = iota + 1
	// Error500 answers 500 Internal Server Error.
	Error500
	// Short announces and sends half of the body asked for, with the
	// Content-Range of the whole.
	Short
	// Stall sends the header and half of the body, then nothing until
	// the client goes away (or 10 seconds pass).
	Stall
)

// The faults an Injector makes of the requests of uploads (see
// InjectWrites).
const (
	// Unavailable answers 503 Service Unavailable, the request's body
	// read and dropped: the store does nothing.
	Unavailable Fault = iota + 101
	// TooMany answers 429 Too Many Requests, the request's body read and
	// dropped: the store does nothing.
	TooMany
	// DropRequest reads half of the request's body, then closes the
	// connection: the store gets at most what the server makes of that
	// half.
	DropRequest
	// LoseAnswer lets the store do what was asked, then closes the
	// connection without answering: the client cannot tell that it was
	// done.
	LoseAnswer
)

// Injector holds the faults still to make and the counts of a server.
// The zero value is ready to use.
type Injector struct {
	// Requests counts the requests received and Sent the body bytes of
	// reads (as they are handed to the connection), since the start or
	// the last Reset. The server counts Requests; Read counts Sent.
	Requests, Sent atomic.Int64

	mu     sync.Mutex
	faults []Fault
	writes []Fault // of the requests of uploads to come, 0 for none
}

// Reset zeroes the counts.
func (in *Injector) Reset() {
	in.Requests.Store(0)
	in.Sent.Store(0)
}

// Inject makes the next ranged reads fail, one fault each, in order.
func (in *Injector) Inject(faults ...Fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.faults = append(in.faults, faults...)
}

// Pending returns how many injected faults have not happened yet.
func (in *Injector) Pending() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.faults)
}

// InjectWrites makes the requests of uploads to come fail: the i-th next
// one (from 0) with faults[i], or not at all where that is 0. Which
// requests are those of uploads is the server's to say (see NextWrite).
func (in *Injector) InjectWrites(faults ...Fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.writes = append(in.writes, faults...)
}

// PendingWrites returns how many requests of uploads the faults injected
// by InjectWrites have still to go through.
func (in *Injector) PendingWrites() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.writes)
}

// NextWrite takes the fault of the next request of an upload: 0 for
// none.
func (in *Injector) NextWrite() Fault {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.writes) == 0 {
		return 0
	}
	f := in.writes[0]
	in.writes = in.writes[1:]
	return f
}

// Refuse makes fault f, Unavailable or TooMany, of r, a request of an
// upload, writing the store's own answer for status with answer: it
// reads the body first (so that the client reads the answer, not a
// connection reset), and reports whether f was one of those.
func Refuse(w http.ResponseWriter, r *http.Request, f Fault, answer func(w http.ResponseWriter, status int)) bool {
	var status int
	switch f {
	case Unavailable:
		status = http.StatusServiceUnavailable
	case TooMany:
		status = http.StatusTooManyRequests
	default:
		return false
	}
	io.Copy(io.Discard, r.Body)
	answer(w, status)
	return true
}

// Abort closes the connection of the request being answered, without an
// answer (or with the part of one already sent); it does not return.
func Abort() {
	panic(http.ErrAbortHandler)
}

// next takes the next pending fault, if any.
func (in *Injector) next() Fault {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.faults) == 0 {
		return 0
	}
	f := in.faults[0]
	in.faults = in.faults[1:]
	return f
}

// Read answers r, a read of an object's bytes, through next, counting
// the body bytes sent; a ranged one (with a Range header) takes the next
// pending fault, and error500 writes the store's own answer for
// Error500.
func (in *Injector) Read(w http.ResponseWriter, r *http.Request, next http.Handler, error500 func(http.ResponseWriter)) {
	var fault Fault
	if r.Header.Get("Range") != "" {
		fault = in.next()
	}
	if fault == Error500 {
		error500(w)
		return
	}
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	if fault != 0 && rec.Code == http.StatusPartialContent {
		half := body[:len(body)/2]
		if fault == Short {
			w.Header().Set("Content-Length", strconv.Itoa(len(half)))
		}
		w.WriteHeader(rec.Code)
		in.Sent.Add(int64(len(half)))
		w.Write(half)
		if fault == Short {
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if fault == Stall {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
		panic(http.ErrAbortHandler) // closes the connection mid-body
	}
	w.WriteHeader(rec.Code)
	// Counted before it is sent: a client may have read it all before
	// Write returns.
	in.Sent.Add(int64(len(body)))
	w.Write(body)
}
