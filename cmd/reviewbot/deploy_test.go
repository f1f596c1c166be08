//go:build !noserve

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const deployDir = "../../deploy"

// TestAppManifest checks the GitHub App manifest asks for exactly the
// permissions and events the App uses (SPEC §8).
func TestAppManifest(t *testing.T) {
	// Every field GitHub's manifest flow knows; an unknown one is a typo.
	var m struct {
		Name        string            `json:"name"`
		URL         string            `json:"url"`
		Description string            `json:"description"`
		Public      bool              `json:"public"`
		Hook        map[string]any    `json:"hook_attributes"`
		Redirect    string            `json:"redirect_url"`
		Permissions map[string]string `json:"default_permissions"`
		Events      []string          `json:"default_events"`
	}
	dec := json.NewDecoder(bytes.NewReader(readDeploy(t, "app-manifest.json")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("app-manifest.json: %v", err)
	}
	want := map[string]string{"contents": "read", "pull_requests": "write", "issues": "write", "statuses": "write",
		"checks": "write", "actions": "read", "metadata": "read"}
	if len(m.Permissions) != len(want) {
		t.Errorf("permissions %v, want %v", m.Permissions, want)
	}
	for k, v := range want {
		if m.Permissions[k] != v {
			t.Errorf("permission %s = %q, want %q", k, m.Permissions[k], v)
		}
	}
	events := append([]string(nil), m.Events...)
	sort.Strings(events)
	if strings.Join(events, ",") != "issue_comment,pull_request,pull_request_review,pull_request_review_comment" {
		t.Errorf("events %v", m.Events)
	}
	if u, _ := m.Hook["url"].(string); !strings.HasSuffix(u, "/webhook") {
		t.Errorf("hook url %q does not point at /webhook", u)
	}
}

// TestKubernetesDeployment checks the Deployment against the server: its
// environment is a valid `reviewbot serve` configuration, its probes hit
// the health endpoints, and it has resource limits.
func TestKubernetesDeployment(t *testing.T) {
	var dep struct {
		Kind string
		Spec struct {
			Replicas int
			Template struct {
				Spec struct {
					TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
					Containers                    []struct {
						Args []string
						Env  []struct {
							Name      string
							Value     string
							ValueFrom map[string]map[string]string `yaml:"valueFrom"`
						}
						LivenessProbe struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"livenessProbe"`
						ReadinessProbe struct {
							HTTPGet struct{ Path string } `yaml:"httpGet"`
						} `yaml:"readinessProbe"`
						Resources struct{ Limits, Requests map[string]string }
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/deployment.yaml"), &dep); err != nil {
		t.Fatal(err)
	}
	if dep.Kind != "Deployment" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("deployment.yaml: kind %q, %d containers", dep.Kind, len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes %q, %q", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
	}
	if c.Resources.Limits["memory"] == "" || c.Resources.Limits["cpu"] == "" || c.Resources.Requests["memory"] == "" {
		t.Errorf("resources %+v", c.Resources)
	}
	keyFile := filepath.Join(t.TempDir(), "private-key.pem")
	if err := os.WriteFile(keyFile, []byte(testKeyPEM(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom["secretKeyRef"]["key"] == "app-id":
			env[e.Name] = "123456"
		case e.ValueFrom["secretKeyRef"] != nil:
			env[e.Name] = "secret-from-the-secret"
		case e.Name == "GITHUB_APP_PRIVATE_KEY_FILE":
			env[e.Name] = keyFile
		default:
			// Kubernetes expands $(NAME) of the variables defined above.
			env[e.Name] = envRef.ReplaceAllStringFunc(e.Value, func(m string) string {
				if v, ok := env[m[2:len(m)-1]]; ok {
					return v
				}
				return m
			})
		}
	}
	cfg, err := loadServeConfig(c.Args[1:], envOf(env), &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("the Deployment's environment is not a valid configuration: %v", err)
	}
	if grace := dep.Spec.Template.Spec.TerminationGracePeriodSeconds; float64(grace) <= cfg.shutdownTimeout.Seconds() {
		t.Errorf("terminationGracePeriodSeconds %d does not leave room for the %v drain", grace, cfg.shutdownTimeout)
	}
	// Several replicas need the shared Redis, and it must be the one the
	// manifests deploy.
	if dep.Spec.Replicas != 3 {
		t.Errorf("replicas: %d, want 3", dep.Spec.Replicas)
	}
	if cfg.redisURL == "" {
		t.Fatal("several replicas without REVIEWBOT_REDIS_URL would each review every PR")
	}
	if strings.Contains(cfg.redisURL, "$(") {
		t.Errorf("REVIEWBOT_REDIS_URL %q refers to a variable defined after it (or not at all)", cfg.redisURL)
	}
	u, err := url.Parse(cfg.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	if pw, _ := u.User.Password(); pw != "secret-from-the-secret" {
		t.Errorf("the Redis password does not come from the Secret")
	}
	checkRedisManifest(t, u.Hostname(), u.Port())
	checkPDB(t, dep.Spec.Replicas)

	var kust struct{ Resources []string }
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/kustomization.yaml"), &kust); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, r := range kust.Resources {
		listed[r] = true
	}
	files, _ := filepath.Glob(filepath.Join(deployDir, "kubernetes", "*.yaml"))
	for _, f := range files {
		name := filepath.Base(f)
		if name != "kustomization.yaml" && name != "secret.example.yaml" && !listed[name] {
			t.Errorf("kustomization.yaml does not list %s", name)
		}
		dec := yaml.NewDecoder(bytes.NewReader(readDeploy(t, "kubernetes/"+name)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				if err != io.EOF {
					t.Errorf("%s: %v", name, err)
				}
				break
			}
			if doc["kind"] == nil && doc["resources"] == nil {
				t.Errorf("%s: a document without kind", name)
			}
		}
	}
}

var envRef = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*\)`)

// checkRedisManifest checks redis.yaml serves Redis at host:port with the
// settings the README asks for.
func checkRedisManifest(t *testing.T, host, port string) {
	t.Helper()
	type container struct {
		Args  []string
		Ports []struct {
			Name          string
			ContainerPort int `yaml:"containerPort"`
		}
	}
	var dep struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Replicas int
			Template struct {
				Spec struct{ Containers []container }
			}
		}
	}
	var svc struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Ports []struct {
				Port       int
				TargetPort string `yaml:"targetPort"`
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(readDeploy(t, "kubernetes/redis.yaml")))
	var found []string
	for {
		var node yaml.Node
		if err := dec.Decode(&node); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		var head struct{ Kind string }
		_ = node.Decode(&head)
		switch head.Kind {
		case "Deployment":
			_ = node.Decode(&dep)
		case "Service":
			_ = node.Decode(&svc)
		}
		found = append(found, head.Kind)
	}
	if dep.Kind != "Deployment" || svc.Kind != "Service" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("redis.yaml holds %v, want a Deployment and a Service", found)
	}
	if dep.Spec.Replicas != 1 {
		t.Errorf("Redis replicas %d: a Deployment of several would be several unrelated Redis servers", dep.Spec.Replicas)
	}
	if svc.Metadata.Name != host {
		t.Errorf("REVIEWBOT_REDIS_URL points at %q, the Service is %q", host, svc.Metadata.Name)
	}
	if len(svc.Spec.Ports) != 1 || fmt.Sprint(svc.Spec.Ports[0].Port) != port {
		t.Errorf("the Redis Service's ports %+v do not serve port %s", svc.Spec.Ports, port)
	}
	args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"--maxmemory-policy noeviction", "--maxmemory ", "--requirepass $(REDIS_PASSWORD)"} {
		if !strings.Contains(args, want) {
			t.Errorf("the Redis arguments %q lack %q", args, want)
		}
	}
}

func checkPDB(t *testing.T, replicas int) {
	t.Helper()
	var pdb struct {
		Kind string
		Spec struct {
			MinAvailable int `yaml:"minAvailable"`
			Selector     struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			}
		}
	}
	if err := yaml.Unmarshal(readDeploy(t, "kubernetes/pdb.yaml"), &pdb); err != nil {
		t.Fatal(err)
	}
	if pdb.Kind != "PodDisruptionBudget" || pdb.Spec.MinAvailable < 1 || pdb.Spec.MinAvailable >= replicas ||
		pdb.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != "reviewbot" {
		t.Errorf("pdb.yaml: %+v (want minAvailable from 1 to %d, selecting the App)", pdb, replicas-1)
	}
}

func readDeploy(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
