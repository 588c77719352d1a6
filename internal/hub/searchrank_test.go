package hub_test

import (
	"github.com/blackboard-hub/bb/internal/hub/search"

	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// The ranking SQLite applies to the newest matches of a common word: a
// match in the title outweighs one in the body, more occurrences weigh
// more, a longer document weighs less, a word in fewer rows weighs more.
func TestSearchScore(t *testing.T) {
	terms, err := search.ParseQuery("deploy")
	if err != nil {
		t.Fatal(err)
	}
	score := func(title, body string) float64 {
		return hub.SearchScore(terms, hub.NewSearchDoc(title, body), hub.SearchIDF(10, 1000), 8)
	}
	title := score("Deploy plan", "see the runbook for friday")
	body := score("Weekly plan", "we deploy on friday at noon")
	twice := score("Weekly plan", "deploy first, then deploy again")
	long := score("Weekly plan", "we deploy on friday at noon after the review of every open change and the release notes")
	prefix := score("", "deployed")
	none := score("Weekly plan", "nothing here")
	if !(title > twice && twice > body && body > long && long > none && none == 0) || prefix <= 0 {
		t.Errorf("title %.3f, twice %.3f, body %.3f, long %.3f, none %.3f, prefix %.3f", title, twice, body, long, none, prefix)
	}
	if !(hub.SearchIDF(10, 1000) > hub.SearchIDF(100, 1000) && hub.SearchIDF(900, 1000) > 0) {
		t.Errorf("idf: %v %v %v", hub.SearchIDF(10, 1000), hub.SearchIDF(100, 1000), hub.SearchIDF(900, 1000))
	}
	// A phrase counts only in order.
	phrase, _ := search.ParseQuery(`"session cookie"`)
	in := hub.SearchScore(phrase, hub.NewSearchDoc("", "the session cookie expired"), 1, 4)
	out := hub.SearchScore(phrase, hub.NewSearchDoc("", "the cookie session expired"), 1, 4)
	if in <= 0 || out != 0 {
		t.Errorf("phrase: in order %.3f, reversed %.3f", in, out)
	}
}
