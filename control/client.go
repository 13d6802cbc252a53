package control

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// ClientOptions are what a Client does with what the tray sends.
type ClientOptions struct {
	// Program names this side in its Hello, e.g. "segwi 0.4.0 window".
	Program string
	// Event is called with each snapshot and event from the tray, in the order sent, on
	// the client's reading goroutine: it must not block for long.
	Event func(Body)
	// Show is called for each Show request, on a goroutine of its own; its error is the
	// reply the tray gets. Nil refuses every Show.
	Show func(ctx context.Context, s Show) error
}

// Client is a client of the tray: the window process.
type Client struct {
	*endpoint
	role Role
	opts ClientOptions
}

// NewClient opens the connection nc to the tray: it exchanges Hellos (a *VersionError
// when the versions differ) and then reads the tray's messages on a goroutine of its own
// until the connection ends (see Done and Err).
func NewClient(nc net.Conn, opts ClientOptions) (*Client, error) {
	conn := NewConn(nc)
	theirs, err := conn.handshake(Hello{Version: Version, Program: opts.Program})
	if err != nil {
		conn.Close()
		return nil, err
	}
	if theirs.Role == "" {
		conn.Close()
		return nil, errors.New("control: handshake: the tray granted no role")
	}
	c := &Client{endpoint: newEndpoint(conn), role: theirs.Role, opts: opts}
	go func() { c.close(c.read()) }()
	return c, nil
}

// Role is what the tray lets this client do.
func (c *Client) Role() Role { return c.role }

// CommandError is the error of a command the tray refused or could not carry out.
type CommandError struct {
	Type Type
	Text string // the tray's words
	Code Code   // the sentinel error it stands for, if any (see Reply.Err)
}

func (e *CommandError) Error() string { return fmt.Sprintf("%s: %s", e.Type, e.Text) }

// Unwrap returns the tray's error, which errors.Is matches against the sentinel of its
// Code (record.ErrNotRunning, token.ErrNotFound, ...).
func (e *CommandError) Unwrap() error { return &ReplyError{Text: e.Text, Code: e.Code} }

// Do sends the command cmd and returns the tray's reply: a *CommandError when the tray
// refused it or it failed. It returns when the reply arrives, ctx is done or the
// connection ends.
func (c *Client) Do(ctx context.Context, cmd Body) (Reply, error) {
	t := cmd.MessageType()
	if !t.IsCommand() {
		return Reply{}, fmt.Errorf("control: %s is not a command", t)
	}
	r, err := c.request(ctx, cmd)
	if err != nil {
		return Reply{}, err
	}
	if r.Error != "" {
		return r, &CommandError{Type: t, Text: r.Error, Code: r.Code}
	}
	return r, nil
}

// read handles the tray's messages until the connection ends, and returns why.
func (c *Client) read() error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for {
		m, err := c.conn.Read()
		if err != nil {
			// The tray is the same build (segwi and segwi-windows are installed together):
			// a message it sends that this side cannot read is a fault to report, not to
			// work around.
			return err
		}
		switch b := m.Body.(type) {
		case Reply:
			c.deliver(m.ID, b)
		case Show:
			go func() {
				err := errors.New("this client shows no windows")
				if c.opts.Show != nil {
					err = c.opts.Show(ctx, b)
				}
				c.send(Message{ID: m.ID, Body: Failed(err)})
			}()
		default:
			t := m.Body.MessageType()
			if t.IsCommand() || t == TypeHello {
				c.send(Message{ID: m.ID, Body: Reply{Error: fmt.Sprintf("refused: the tray may not send %s", t)}})
				continue
			}
			if c.opts.Event != nil {
				c.opts.Event(m.Body)
			}
		}
	}
}
