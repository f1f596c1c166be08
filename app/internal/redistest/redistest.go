// Package redistest runs a real redis-server on loopback for the tests of
// the App and its shared state (they skip without one).
package redistest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Proc is a real redis-server the test started on a free loopback
// port, in a temporary directory, with nothing persisted: stopping it
// loses every key, as a Redis that crashed without persistence would.
type Proc struct {
	t    testing.TB
	bin  string
	dir  string
	Port int
	cmd  *exec.Cmd
	// exited gets the process's exit once it ends.
	exited chan error
	URL    string
}

// ServerBinary finds redis-server: $REVIEWBOT_REDIS_SERVER, then
// PATH, then where Debian installs it.
func ServerBinary() (string, bool) {
	if p := os.Getenv("REVIEWBOT_REDIS_SERVER"); p != "" {
		return p, true
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, true
	}
	for _, p := range []string{"/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// Start starts a redis-server for the test (stopped at cleanup). It
// skips the test when no redis-server can be found.
func Start(t testing.TB) *Proc {
	t.Helper()
	bin, ok := ServerBinary()
	if !ok {
		t.Skip("redis-server not found (apt-get install redis-server, or set REVIEWBOT_REDIS_SERVER); .ci/run installs it")
	}
	p := &Proc{t: t, bin: bin, dir: t.TempDir()}
	var err error
	for range 5 {
		if p.Port, err = freePort(); err != nil {
			continue
		}
		if err = p.launch(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	p.URL = fmt.Sprintf("redis://127.0.0.1:%d/0", p.Port)
	t.Cleanup(p.Stop)
	return p
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// launch starts the process on p.Port and waits until it answers.
func (p *Proc) launch() error {
	p.cmd = exec.Command(p.bin, "--port", strconv.Itoa(p.Port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", p.dir, "--daemonize", "no", "--maxmemory-policy", "noeviction",
		"--logfile", filepath.Join(p.dir, "redis.log"))
	if err := p.cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	addr := fmt.Sprintf("127.0.0.1:%d", p.Port)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(p.dir, "redis.log"))
			p.cmd = nil
			return fmt.Errorf("redis-server exited (%v):\n%s", err, log)
		default:
		}
		// A raw PING: go-redis would log every refused dial.
		if conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			conn.SetDeadline(time.Now().Add(time.Second))
			_, err = conn.Write([]byte("PING\r\n"))
			buf := make([]byte, 7)
			if err == nil {
				_, err = io.ReadFull(conn, buf)
			}
			conn.Close()
			if err == nil && string(buf) == "+PONG\r\n" {
				p.exited = exited
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = p.cmd.Process.Kill()
	<-exited
	p.cmd = nil
	return fmt.Errorf("redis-server on port %d did not answer within 10s", p.Port)
}

// Stop kills the server (SIGKILL: a crash, nothing saved). Idempotent.
func (p *Proc) Stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.cmd = nil
}

// Restart starts an empty server on the same port.
func (p *Proc) Restart() {
	p.t.Helper()
	p.Stop()
	var err error
	for range 50 { // the port may take a moment to be free again
		if err = p.launch(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("restart redis-server: %v", err)
}

// Client is a plain go-redis client for the test's own looks at the keys.
func (p *Proc) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", p.Port)})
	p.t.Cleanup(func() { c.Close() })
	return c
}

// SlowProxy forwards TCP connections to a server, holding every chunk the
// Client sends for a delay: a slow Redis (a far region, an overloaded
// server) without changing the server.
type SlowProxy struct {
	ln     net.Listener
	target string
	delay  time.Duration
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func StartSlowProxy(t testing.TB, target string, delay time.Duration) *SlowProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &SlowProxy{ln: ln, target: target, delay: delay}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

func (p *SlowProxy) URL() string { return "redis://" + p.ln.Addr().String() + "/0" }

func (p *SlowProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { // Client → server, late
			defer p.wg.Done()
			defer s.Close()
			buf := make([]byte, 64<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					time.Sleep(p.delay)
					if _, werr := s.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { // server → client
			defer p.wg.Done()
			defer c.Close()
			_, _ = io.Copy(c, s)
		}()
	}
}

func (p *SlowProxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
