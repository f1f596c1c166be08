package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// buildVersion is set with -ldflags "-X main.buildVersion=..." by builds
// that have no module version of their own: the GitHub Action builds from
// a source tarball without .git and passes the action's ref.
var buildVersion string

// version is the module version reviewbot was built as: the tag for
// `go install ...@v1.2.3`, a pseudo-version for a build in a clone, or
// "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	if buildVersion != "" {
		return buildVersion
	}
	return "devel"
}

// versionLine describes a build: version, VCS revision and time, whether
// the tree had uncommitted changes, and the toolchain.
func versionLine(bi *debug.BuildInfo, ok bool) string {
	v := "devel"
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	} else if buildVersion != "" {
		v = buildVersion
	}
	var parts []string
	if ok {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			parts = append(parts, "revision "+rev)
			if t := settings["vcs.time"]; t != "" {
				parts = append(parts, t)
			}
			switch settings["vcs.modified"] {
			case "true":
				parts = append(parts, "dirty")
			case "false":
				parts = append(parts, "clean")
			}
		} else {
			parts = append(parts, "no VCS information")
		}
	}
	goVersion := runtime.Version()
	if ok && bi.GoVersion != "" {
		goVersion = bi.GoVersion
	}
	parts = append(parts, goVersion+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("reviewbot %s (%s)", v, strings.Join(parts, ", "))
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("version", "reviewbot version")
	cmd.about = "Prints the module version, the VCS revision and time the binary was built from, whether\nthat tree had uncommitted changes (dirty), and the Go toolchain."
	pos, code, ok := cmd.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "reviewbot version: unexpected argument %q\n", pos[0])
		return exitError
	}
	bi, biOK := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(bi, biOK))
	return exitOK
}
