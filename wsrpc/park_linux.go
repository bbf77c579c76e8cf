package wsrpc

import (
	"errors"
	"sync"
	"syscall"
)

// The idle-socket poller: one epoll instance for the process, watched by one goroutine, on
// which an idle socket waits for its next message instead of a goroutine of its own (see
// corkConn.park). Go's own poller already watches each socket (edge-triggered); a second
// epoll instance on the same descriptor is allowed and independent.

// parkEvents is how many readiness events one epoll_wait returns at most.
const parkEvents = 128

// idlePoller is the process's poller, started by the first socket that parks.
var idlePoller struct {
	once sync.Once
	epfd int
	err  error

	mu    sync.Mutex
	conns map[uint64]*corkConn // parked or once parked, by token; removed on Close
	next  uint64
}

// startPoller creates the epoll instance and its goroutine once.
func startPoller() error {
	p := &idlePoller
	p.once.Do(func() {
		p.epfd, p.err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if p.err != nil {
			return
		}
		p.conns = map[uint64]*corkConn{}
		go pollLoop(p.epfd)
	})
	return p.err
}

// pollLoop wakes the sockets that became readable (or were hung up), each once per park.
// It blocks in epoll_wait on a thread of its own and never ends: the instance lives as long
// as the process.
func pollLoop(epfd int) {
	events := make([]syscall.EpollEvent, parkEvents)
	for {
		n, err := syscall.EpollWait(epfd, events, -1)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			// Nothing else can fail on a valid epoll descriptor with a valid buffer; should
			// it, the parked sockets are woken and no socket parks again.
			pollerFailed(err)
			return
		}
		for _, ev := range events[:n] {
			token := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			idlePoller.mu.Lock()
			c := idlePoller.conns[token]
			idlePoller.mu.Unlock()
			if c != nil {
				c.wake(nil)
			}
		}
	}
}

// pollerFailed wakes every parked socket and refuses parking from then on.
func pollerFailed(err error) {
	p := &idlePoller
	p.mu.Lock()
	p.err = err
	conns := p.conns
	p.conns = map[uint64]*corkConn{}
	p.mu.Unlock()
	for _, c := range conns {
		c.wake(nil)
	}
}

// arm registers c's descriptor (c.pmu is held) for one readiness event (EPOLLONESHOT: the event disarms it
// until the next arm). Readiness that is already there is reported at once, so data that
// arrived before the arm is not missed.
func (c *corkConn) arm() error {
	p := &idlePoller
	if err := startPoller(); err != nil {
		return err
	}
	if c.token == 0 {
		sc, ok := c.Conn.(syscall.Conn)
		if !ok {
			return errors.ErrUnsupported
		}
		rc, err := sc.SyscallConn()
		if err != nil {
			return err
		}
		fd := -1
		if err := rc.Control(func(d uintptr) { fd = int(d) }); err != nil {
			return err
		}
		p.mu.Lock()
		if p.err != nil {
			p.mu.Unlock()
			return p.err
		}
		p.next++
		c.token = p.next
		p.conns[c.token] = c
		p.mu.Unlock()
		c.fd = fd
	}
	ev := syscall.EpollEvent{
		Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT,
		Fd:     int32(uint32(c.token)),
		Pad:    int32(uint32(c.token >> 32)),
	}
	op := syscall.EPOLL_CTL_MOD
	if !c.armed {
		op = syscall.EPOLL_CTL_ADD
	}
	if err := syscall.EpollCtl(p.epfd, op, c.fd, &ev); err != nil {
		return err
	}
	c.armed = true
	return nil
}

// disarm removes c from the poller (Close, before the descriptor is closed; c.pmu is held).
func (c *corkConn) disarm() {
	p := &idlePoller
	if c.token == 0 {
		return
	}
	p.mu.Lock()
	delete(p.conns, c.token)
	p.mu.Unlock()
	if c.armed {
		_ = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
		c.armed = false
	}
}
