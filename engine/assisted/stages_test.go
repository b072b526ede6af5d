package assisted

import (
	"testing"
	"time"
)

func TestStageLists(t *testing.T) {
	cases := []struct {
		name           string
		role           Role
		bootstrap, sno bool
		want           []Stage
	}{
		{"bootstrap", RoleMaster, true, false, StagesBootstrap},
		{"master, day-1 or day-2", RoleMaster, false, false, StagesMaster},
		{"arbiter", RoleArbiter, false, false, StagesMaster},
		{"worker", RoleWorker, false, false, StagesWorker},
		{"single node", RoleMaster, true, true, StagesSNO},
	}
	for _, c := range cases {
		if got := StagesFor(c.role, c.bootstrap, c.sno); len(got) != len(c.want) || &got[0] != &c.want[0] {
			t.Errorf("%s: %v", c.name, got)
		}
	}
	for name, n := range map[string]int{"bootstrap": len(StagesBootstrap), "master": len(StagesMaster), "worker": len(StagesWorker), "sno": len(StagesSNO)} {
		want := map[string]int{"bootstrap": 11, "master": 8, "worker": 9, "sno": 8}[name]
		if n != want {
			t.Errorf("%s has %d stages, want %d", name, n, want)
		}
	}
}

// Progress arithmetic (internal/host/common.go).
func TestProgress(t *testing.T) {
	if p := HostPercent(StagesBootstrap, StageWaitingForControlPlan); p != 45 {
		t.Errorf("bootstrap at stage 5 of 11: %d", p)
	}
	if p := HostPercent(StagesWorker, StageDone); p != 100 {
		t.Errorf("done: %d", p)
	}
	if p := HostPercent(StagesWorker, ""); p != 0 {
		t.Errorf("no stage: %d", p)
	}
	hosts := []HostStages{
		{StagesSNO, StageWritingImageToDisk}, // index 3 of 8
	}
	if p := InstallingPercent(hosts); p != 50 {
		t.Errorf("installing: %d", p)
	}
	hosts = []HostStages{{StagesBootstrap, StageInstalling}, {StagesMaster, ""}, {StagesMaster, StageRebooting}}
	// (2 + 0 + 5) / (11 + 8 + 8) = 7/27 → 25
	if p := InstallingPercent(hosts); p != 25 {
		t.Errorf("installing: %d", p)
	}
	if p := TotalPercent(100, 0, 0); p != 10 {
		t.Errorf("after preparation: %d", p)
	}
	if p := TotalPercent(100, 50, 50); p != 10+35+7 {
		t.Errorf("total: %d", p)
	}
	if p := TotalPercent(100, 100, 100); p != 95 {
		t.Errorf("capped: %d", p)
	}
}

func TestStageTimeouts(t *testing.T) {
	cases := []struct {
		stage Stage
		sno   bool
		want  time.Duration
	}{
		{StageRebooting, false, 40 * time.Minute},
		{StageRebooting, true, 80 * time.Minute},
		{StageWaitingForControlPlan, false, 90 * time.Minute},
		{StageWritingImageToDisk, false, 30 * time.Minute},
		{StageWaitingForIgnition, false, 24 * time.Hour},
		{StageDone, false, 60 * time.Minute},
	}
	for _, c := range cases {
		if got := StageTimeout(c.stage, c.sno); got != c.want {
			t.Errorf("%s sno=%v: %v", c.stage, c.sno, got)
		}
	}
	if got := InfoStageTimeout(StageWritingImageToDisk, 30*time.Minute); got != "Host failed to install because its installation stage Writing image to disk did not sufficiently progress in the last 30m0s." {
		t.Errorf("%q", got)
	}
	if got := InfoStageTimeout(StageConfiguring, time.Hour); got != "Host failed to install because its installation stage Configuring took longer than expected 1h0m0s" {
		t.Errorf("%q", got)
	}
}
