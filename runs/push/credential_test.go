package push

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// helperRun runs segwi's credential helper the way git does (sh -c "... ACTION") with
// the channel's pipes as fds 3 and 4, and returns what it printed for git.
func helperRun(t *testing.T, ch *credentialChannel, action, request string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", strings.TrimPrefix(credentialHelper(3, 4), "!")+" "+action)
	cmd.Stdin = strings.NewReader(request)
	cmd.ExtraFiles = ch.childFiles()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s: %v", action, err)
	}
	return string(out)
}

// serveForTest serves ch while the test holds git's ends, and returns a func that
// closes them, as git exiting would, and waits for serving to end.
func serveForTest(t *testing.T, ch *credentialChannel) (finish func()) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not installed")
	}
	go ch.serve()
	t.Cleanup(ch.close)
	return func() {
		ch.answerR.Close()
		ch.requestW.Close()
		<-ch.done
	}
}

func TestCredentialChannelAnswersTheRemotesHostOnce(t *testing.T) {
	ch, err := newCredentialChannel("https", "github.com", "", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	finish := serveForTest(t, ch)

	got := helperRun(t, ch, "get", "protocol=https\nhost=github.com\nusername=x-access-token\n")
	want := "username=x-access-token\npassword=" + testToken + "\n"
	if got != want {
		t.Errorf("first get answered %q, want %q", got, want)
	}
	if got := helperRun(t, ch, "get", "protocol=https\nhost=github.com\n"); got != "" {
		t.Errorf("second get answered %q, want nothing: the token is given once", got)
	}
	if got := helperRun(t, ch, "store", "protocol=https\nhost=github.com\npassword=x\n"); got != "" {
		t.Errorf("store printed %q, want nothing", got)
	}
	finish()
	if o := ch.outcome(); o.rejected || o.otherHost != "" {
		t.Errorf("outcome = %+v, want no rejection and no other host", o)
	}
}

func TestCredentialChannelDoesNotAnswerAnotherHost(t *testing.T) {
	tests := []struct {
		name, request, wantRefused string
	}{
		{"another host", "protocol=https\nhost=evil.example\npath=me/web.git\n", "https://evil.example/me/web.git"},
		{"another port", "protocol=https\nhost=github.com:8443\npath=me/web.git\n", "https://github.com:8443/me/web.git"},
		{"plain http to the same host", "protocol=http\nhost=github.com\npath=me/web.git\n", "http://github.com/me/web.git"},
		// credential.useHttpPath: a push sent to another repository of the same host (an
		// insteadOf, a redirect) gets no token either.
		{"another repository on the same host", "protocol=https\nhost=github.com\npath=evil/web.git\n", "https://github.com/evil/web.git"},
		{"no path", "protocol=https\nhost=github.com\n", "https://github.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := newCredentialChannel("https", "github.com", "/me/web.git", testToken, nil)
			if err != nil {
				t.Fatal(err)
			}
			finish := serveForTest(t, ch)
			if got := helperRun(t, ch, "get", tt.request); got != "" {
				t.Errorf("get for %s answered %q, want nothing", tt.name, got)
			}
			// After a wrong request the right one gets nothing either.
			if got := helperRun(t, ch, "get", "protocol=https\nhost=github.com\npath=me/web.git\n"); got != "" {
				t.Errorf("get after a wrong host answered %q, want nothing", got)
			}
			finish()
			if o := ch.outcome(); o.otherHost != tt.wantRefused {
				t.Errorf("refused host = %q, want %q", o.otherHost, tt.wantRefused)
			}
		})
	}
}

func TestCredentialChannelNoticesTheServerRefusedTheToken(t *testing.T) {
	ch, err := newCredentialChannel("https", "github.com", "", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	finish := serveForTest(t, ch)
	helperRun(t, ch, "get", "protocol=https\nhost=github.com\n")
	if got := helperRun(t, ch, "erase", "protocol=https\nhost=github.com\nusername=x-access-token\npassword="+testToken+"\n"); got != "" {
		t.Errorf("erase printed %q, want nothing", got)
	}
	finish()
	if o := ch.outcome(); !o.rejected {
		t.Error("outcome says the token was not rejected after git asked to erase it")
	}
}

// A URL that carries its own password makes git use that password without asking, and
// erase it when the server refuses it: that is not segwi's token being refused.
func TestCredentialChannelTellsAnotherRefusedPasswordFromTheToken(t *testing.T) {
	ch, err := newCredentialChannel("https", "github.com", "", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	finish := serveForTest(t, ch)
	helperRun(t, ch, "erase", "protocol=https\nhost=github.com\nusername=someone\npassword=hunter2\n")
	finish()
	if o := ch.outcome(); o.rejected {
		t.Error("outcome says the token was rejected, but segwi never gave it and git erased another password")
	}
}

func TestCredentialChannelWithholdsTheTokenWhenTheGuardObjects(t *testing.T) {
	changed := errors.New("the folder was changed")
	ch, err := newCredentialChannel("https", "github.com", "", testToken, func() error { return changed })
	if err != nil {
		t.Fatal(err)
	}
	finish := serveForTest(t, ch)
	if got := helperRun(t, ch, "get", "protocol=https\nhost=github.com\n"); got != "" {
		t.Errorf("get answered %q, want nothing while the guard objects", got)
	}
	finish()
	if o := ch.outcome(); o.changed != changed {
		t.Errorf("outcome = %+v, want the guard's reason", o)
	}
}
