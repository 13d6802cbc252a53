package control

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// IOTimeout bounds writing one message, reading the rest of one once its first byte
// arrived, and the exchange of Hellos: a peer that stops half way through a message, stops
// reading, or never says hello is cut off. Waiting for the next message has no limit: a
// connection may be idle.
const IOTimeout = 10 * time.Second

// ErrTooLarge is wrapped by the error of a connection that received, or was asked to
// send, a message over MaxMessageBytes. A received one ends the connection: what follows
// its length cannot be trusted to be a message.
var ErrTooLarge = errors.New("control: message over the size limit")

// Conn frames messages on a stream connection: a 4-byte big-endian length, then the
// message's JSON text. Read and Write may be called from two goroutines; Writes are
// serialised.
type Conn struct {
	nc      net.Conn
	r       *bufio.Reader
	timeout time.Duration

	wmu sync.Mutex
}

// NewConn frames messages on nc, with the limits above.
func NewConn(nc net.Conn) *Conn {
	return &Conn{nc: nc, r: bufio.NewReader(nc), timeout: IOTimeout}
}

// Write sends m, within IOTimeout.
func (c *Conn) Write(m Message) error {
	f, err := makeFrame(m)
	if err != nil {
		return err
	}
	return c.writeFrame(f)
}

// frame is a message ready to be written.
type frame struct {
	typ  Type
	data []byte // the length, then the JSON text
}

// makeFrame marshals m and checks its size.
func makeFrame(m Message) (frame, error) {
	data, err := Marshal(m)
	if err != nil {
		return frame{}, err
	}
	t := m.Body.MessageType()
	if len(data) > MaxMessageBytes {
		return frame{}, fmt.Errorf("control: sending a %s message of %d bytes: %w (%d bytes)", t, len(data), ErrTooLarge, MaxMessageBytes)
	}
	f := frame{typ: t, data: make([]byte, 4+len(data))}
	binary.BigEndian.PutUint32(f.data, uint32(len(data)))
	copy(f.data[4:], data)
	return f, nil
}

// writeFrame writes f within IOTimeout.
func (c *Conn) writeFrame(f frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout))
	if _, err := c.nc.Write(f.data); err != nil {
		return fmt.Errorf("control: sending a %s message: %w", f.typ, err)
	}
	return nil
}

// Read returns the next message. It waits as long as the peer sends nothing; once a
// message has begun, the rest must come within IOTimeout. A *MalformedError leaves the
// connection usable (the frame was read whole); any other error ends it: io.EOF when the
// peer closed it between messages, ErrTooLarge (wrapped) for an oversized frame.
func (c *Conn) Read() (Message, error) {
	data, err := c.readFrame(time.Time{})
	if err != nil {
		return Message{}, err
	}
	return Unmarshal(data)
}

// readFrame reads one frame, waiting for its first byte until idle (zero: no limit).
func (c *Conn) readFrame(idle time.Time) ([]byte, error) {
	c.nc.SetReadDeadline(idle)
	if _, err := c.r.Peek(1); err != nil {
		return nil, err // io.EOF between messages is a clean end
	}
	c.nc.SetReadDeadline(time.Now().Add(c.timeout))
	var head [4]byte
	if _, err := io.ReadFull(c.r, head[:]); err != nil {
		return nil, fmt.Errorf("control: reading a message's length: %w", unexpected(err))
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > MaxMessageBytes {
		return nil, fmt.Errorf("control: a message of %d bytes: %w (%d bytes)", n, ErrTooLarge, MaxMessageBytes)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(c.r, data); err != nil {
		return nil, fmt.Errorf("control: reading a message of %d bytes: %w", n, unexpected(err))
	}
	return data, nil
}

// unexpected turns an EOF inside a message into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Close closes the connection; a Read or Write under way returns.
func (c *Conn) Close() error { return c.nc.Close() }

// handshake sends ours and reads the peer's Hello within the I/O timeout. It fails with a
// *VersionError when the versions differ.
func (c *Conn) handshake(ours Hello) (Hello, error) {
	if err := c.Write(Message{Body: ours}); err != nil {
		return Hello{}, fmt.Errorf("control: handshake: %w", err)
	}
	data, err := c.readFrame(time.Now().Add(c.timeout))
	if err != nil {
		return Hello{}, fmt.Errorf("control: handshake: %w", err)
	}
	m, err := Unmarshal(data)
	if err != nil {
		return Hello{}, fmt.Errorf("control: handshake: %w", err)
	}
	theirs, ok := m.Body.(Hello)
	if !ok {
		return Hello{}, fmt.Errorf("control: handshake: the other side sent %s before hello", m.Body.MessageType())
	}
	if theirs.Version != ours.Version {
		return theirs, &VersionError{Ours: ours.Version, Theirs: theirs.Version, OurProgram: ours.Program, TheirProgram: theirs.Program}
	}
	return theirs, nil
}
