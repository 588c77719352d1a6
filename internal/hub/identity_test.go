package hub

import (
	"regexp"
	"testing"
	"time"
)

var agentNameRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

func TestValidateAgentName(t *testing.T) {
	for _, ok := range []string{"abc", "agent-ui-1", "a-b", "x1y", "amber-otter", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		if err := ValidateAgentName("name", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "ab", "-ab", "ab-", "a--b", "Abc", "a_b", "a b", "a.b", "ágent", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		if err := ValidateAgentName("name", bad); !IsCode(err, CodeInvalidArgs) {
			t.Errorf("%q: got %v, want INVALID_ARGS", bad, err)
		}
	}
}

// FuzzAgentName: the hand-written validator agrees with seed 000's regular
// expression and length rule on every input.
func FuzzAgentName(f *testing.F) {
	for _, s := range []string{"agent-ui-1", "a--b", "-x", "x-", "ABC", "abc", "ab", "a-b-c-d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := agentNameRE.MatchString(s) && len(s) >= 3 && len(s) <= 48
		if got := ValidateAgentName("name", s) == nil; got != want {
			t.Fatalf("%q: valid=%v, regexp says %v", s, got, want)
		}
	})
}

func TestStateOf(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	direct := &Message{Seq: 5, To: "bob"}
	bcast := &Message{Seq: 5, To: Broadcast}
	for _, c := range []struct {
		m      *Message
		r      Receipt
		cursor int64
		want   string
	}{
		{direct, Receipt{}, 0, StateUnread},
		{direct, Receipt{}, 9, StateUnread}, // the board cursor only covers broadcasts
		{direct, Receipt{ReadAt: &now}, 0, StateRead},
		{direct, Receipt{AckedAt: &now}, 0, StateAcked},
		{direct, Receipt{ReadAt: &now, AckedAt: &now}, 0, StateAcked},
		{bcast, Receipt{}, 4, StateUnread},
		{bcast, Receipt{}, 5, StateRead},
		{bcast, Receipt{AckedAt: &now}, 5, StateAcked},
	} {
		if got := StateOf(c.m, c.r, c.cursor); got != c.want {
			t.Errorf("%+v %+v cursor %d: %s, want %s", c.m, c.r, c.cursor, got, c.want)
		}
	}
}
