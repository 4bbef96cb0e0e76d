package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// nopStore is a Store that does nothing, to register.
type nopStore struct{ Store }

// A scheme no driver took fails with ErrNoDriver naming the package to
// import (a known scheme) or the scheme (another); a Store handed in wins
// over the one registered; Register refuses a scheme twice, an empty one
// and a nil Store.
func TestRegistry(t *testing.T) {
	for scheme, pkg := range drivers {
		name := scheme + "://bucket/key.trv"
		if !IsURL(name, nil) {
			t.Errorf("%s: not a store's URL", name)
		}
		_, err := For(name, nil)
		if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), `import _ "`+pkg+`"`) {
			t.Errorf("%s without a driver: %v", name, err)
		}
	}
	if IsURL("mem://b/k", nil) || IsURL("/tmp/x.trv", nil) || IsURL("http://h/x", nil) {
		t.Error("IsURL took a scheme nobody registered, a path or an http URL")
	}
	mine := nopStore{}
	if !IsURL("mem://b/k", map[string]Store{"mem": mine}) {
		t.Error("IsURL ignored the stores handed in")
	}
	Register("testscheme", nopStore{})
	if !IsURL("testscheme://b/k", nil) || !strings.Contains(strings.Join(Schemes(), ","), "testscheme") {
		t.Errorf("registered scheme not known: %v", Schemes())
	}
	if st, err := For("testscheme://b/k", map[string]Store{"testscheme": &mine}); err != nil || st != Store(&mine) {
		t.Errorf("For preferred the registry to the store handed in: %v, %v", st, err)
	}
	if st, err := For("testscheme://b/k", nil); err != nil || st == nil {
		t.Errorf("For of a registered scheme: %v, %v", st, err)
	}
	if _, err := For("other://b/k", nil); !errors.Is(err, ErrNoDriver) {
		t.Errorf("unknown scheme: %v", err)
	}
	for _, c := range []struct {
		name   string
		scheme string
		s      Store
	}{{"twice", "testscheme", nopStore{}}, {"empty", "", nopStore{}}, {"nil", "x", nil}, {"colon", "a:b", nopStore{}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register %s did not panic", c.name)
				}
			}()
			Register(c.scheme, c.s)
		}()
	}
}

// Key is the object's key without the bucket and the query, a glob's "?"
// kept; Scheme the URL's scheme.
func TestKeyAndScheme(t *testing.T) {
	for _, c := range []struct{ name, scheme, key string }{
		{"s3://bkt/a/b.trv", "s3", "a/b.trv"},
		{"s3://bkt/a/b.trv?region=eu-west-1", "s3", "a/b.trv"},
		{"s3://bkt?region=x/a.trv", "s3", "a.trv"},
		{"gs://bkt/logs/part-?.trv", "gs", "logs/part-?.trv"},
		{"gs://bkt/logs/*.trv?anonymous=true", "gs", "logs/*.trv"},
		{"azblob://c/", "azblob", ""},
		{"s3:///key", "s3", ""},
		{"/tmp/x.trv", "", ""},
		{"1x://b/k", "", ""},
	} {
		if s := Scheme(c.name); s != c.scheme {
			t.Errorf("Scheme(%q) = %q, want %q", c.name, s, c.scheme)
		}
		if k := Key(c.name); k != c.key {
			t.Errorf("Key(%q) = %q, want %q", c.name, k, c.key)
		}
	}
}

// OpenStream reads an Object in order and closes it.
func TestOpenStream(t *testing.T) {
	data := strings.Repeat("0123456789", StreamChunk/10+7)
	st := &memObjects{data: data}
	r, err := OpenStream(context.Background(), st, "m://b/k", nil)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if sb.String() != data {
		t.Errorf("read %d bytes, want %d", sb.Len(), len(data))
	}
	if err := r.Close(); err != nil || !st.closed {
		t.Errorf("Close: %v, object closed %v", err, st.closed)
	}
}

// memObjects is a Store of one object, for OpenStream.
type memObjects struct {
	Store
	data   string
	closed bool
}

func (m *memObjects) Open(context.Context, string, *Options) (Object, error) {
	return memObject{m}, nil
}

type memObject struct{ m *memObjects }

func (o memObject) ReadAt(p []byte, off int64) (int, error) {
	return strings.NewReader(o.m.data).ReadAt(p, off)
}
func (o memObject) Size() int64     { return int64(len(o.m.data)) }
func (o memObject) Version() string { return "1" }
func (o memObject) Close() error    { o.m.closed = true; return nil }
