package migrate

import "testing"

func TestSummaryNamesASingleKeyAndCountsMore(t *testing.T) {
	one := Retired{Key: "segwi.branchPrefixes", Setting: "segwi.branchPrefixes"}
	web := Retired{Key: "segwi.repositories[0].allowedDomains", Repository: "web", Setting: "segwi.repositories[].allowedDomains"}
	const file = "/home/ada/.config/segwi/config.yaml"
	if got, want := Summary(file, []Retired{one}), "segwi.branchPrefixes in "+file+" is retired and ignored: delete it."; got != want {
		t.Errorf("Summary of one key = %q, want %q", got, want)
	}
	if got, want := Summary(file, []Retired{one, web, one}), "3 retired settings in "+file+" are ignored: delete them."; got != want {
		t.Errorf("Summary of three = %q, want %q", got, want)
	}
}
