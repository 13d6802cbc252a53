package control

import (
	"context"
	"errors"

	"github.com/segwi/segwi/runs/record"
)

// RaiseBudget raises a going run's budget by By (runs.Run.RaiseBudget): a run waiting at
// its budget goes on. The tray records who asked: the window's person, or the approval
// page's device and login (RoleRemote), which may raise only a run that waits at its
// budget (runs.Run.RaiseWaitingBudget).
type RaiseBudget struct {
	Run string        `json:"run"`
	By  record.Budget `json:"by"`
}

// MessageType returns TypeRaiseBudget.
func (RaiseBudget) MessageType() Type { return TypeRaiseBudget }

func (r RaiseBudget) check() error {
	if r.By.CostUSD < 0 || r.By.Tokens < 0 || r.By.Turns < 0 || r.By.IsZero() {
		return errors.New("no raise: a cost, tokens or turns above 0")
	}
	return needRun(r.Run)
}

// RaiseBudget raises the run id's budget by by; see RaiseBudget.
func (c *Client) RaiseBudget(ctx context.Context, id string, by record.Budget) error {
	_, err := c.do(ctx, RaiseBudget{Run: id, By: by})
	return err
}
