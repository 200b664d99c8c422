// A Netmera-shaped Live Activity sender service in Go, the service under test of `pushbench
// profile --api examples/netmera-lifecycle.yaml` when the service must be fast enough that the
// measurement shows PushBench's own limits rather than the service's. Only Go's standard
// library: net/http (its HTTP/2 client to APNs, its HTTP/1.1 server for the API) and
// crypto/ecdsa for the ES256 provider token.
//
// Endpoints, header X-netmera-api-key = $NETMERA_API_KEY (the same as
// Tests/Scripts/live_activity_service.py's Netmera side):
//
//	POST /rest/3.0/live-activity/start-token {"extId", "groupId", "token"}: a device's
//	     push-to-start token (a later one of the same extId replaces it)
//	POST /rest/3.0/sendBulkNotification {"message": {"title", "text", "contentState",
//	     "liveActAttr", "liveActAttrType"}, "type": "LIVE_ACTIVITY", "target": {"groupId"}}:
//	     a start push to each push-to-start token of the group
//	POST /rest/3.0/live-activity/register {"groupId", "activityId", "token"}: replaces an
//	     earlier token of the same activityId
//	POST /rest/3.0/live-activity/close {"groupId", "activityId"}
//	POST /rest/3.0/update-live-activity {"groupId", "action": "UPDATE"|"END", "contentState",
//	     "priority"}: one call, every activity of the group
//
// A start or an update is answered 202 at once and fanned out after: its pushes join one
// queue, in order, which -workers goroutines send over at most -connections HTTP/2
// connections, so the streams in flight are bounded by -workers.
//
// It takes what profile hands a service: PUSHBENCH_SERVICE_PORT to listen on (127.0.0.1), and
// PUSHBENCH_APNS_HOST, PUSHBENCH_APNS_PORT, PUSHBENCH_CA_FILE, PUSHBENCH_AUTH_KEY (or
// PUSHBENCH_AUTH_KEY_PEM), PUSHBENCH_KEY_ID, PUSHBENCH_TEAM_ID and PUSHBENCH_TOPIC to reach
// APNs. On SIGTERM or SIGINT it prints what it did on stderr and exits 0. Faults, for the runs
// that must see them:
//
//	-drop-reports F  answers a share F of token reports with success and forgets them
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	mathrand "math/rand"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	workers := flag.Int("workers", 500, "pushes in flight to APNs at most")
	connections := flag.Int("connections", 4, "HTTP/2 connections to APNs at most")
	dropReports := flag.Float64("drop-reports", 0, "share of token reports answered and forgotten")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("netmera-go: ")

	signer, err := newSigner()
	if err != nil {
		log.Fatal(err)
	}
	client, err := apnsClient(*connections)
	if err != nil {
		log.Fatal(err)
	}
	service := &service{
		apiKey:      os.Getenv("NETMERA_API_KEY"),
		baseURL:     "https://" + net.JoinHostPort(mustEnv("PUSHBENCH_APNS_HOST"), mustEnv("PUSHBENCH_APNS_PORT")),
		topic:       mustEnv("PUSHBENCH_TOPIC"),
		client:      client,
		signer:      signer,
		queue:       newPushQueue(),
		dropReports: *dropReports,
		random:      mathrand.New(mathrand.NewSource(5521)),
		startTokens: map[string]*tokenList{},
		groups:      map[string]*tokenList{},
		failures:    map[string]int{},
	}
	for i := 0; i < *workers; i++ {
		go service.work()
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", mustEnv("PUSHBENCH_SERVICE_PORT")))
	if err != nil {
		log.Fatal(err)
	}
	server := &http.Server{Handler: service, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatal(err)
		}
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	server.Close()
	fmt.Fprintln(os.Stderr, service.summary())
}

func mustEnv(name string) string {
	value := os.Getenv(name)
	if value == "" {
		log.Fatalf("%s is not set: run me under pushbench profile", name)
	}
	return value
}

// tokenList is a group's tokens in the order they were first registered, each replaceable and
// removable by its key (the device's extId, or the activity's id).
type tokenList struct {
	index  map[string]int
	tokens []string // "" where removed
}

func (list *tokenList) put(key, token string) {
	if at, ok := list.index[key]; ok {
		list.tokens[at] = token
		return
	}
	list.index[key] = len(list.tokens)
	list.tokens = append(list.tokens, token)
}

func (list *tokenList) remove(key string) {
	if at, ok := list.index[key]; ok {
		list.tokens[at] = ""
		delete(list.index, key)
	}
}

func (list *tokenList) live() []string {
	live := make([]string, 0, len(list.index))
	for _, token := range list.tokens {
		if token != "" {
			live = append(live, token)
		}
	}
	return live
}

// push is one push waiting to be sent.
type push struct {
	token    string
	body     []byte
	priority string
}

// pushQueue is an unbounded first-in first-out queue of pushes: a call's fan-out is queued at
// once, whatever its size, and the workers take from the front.
type pushQueue struct {
	mutex   sync.Mutex
	ready   *sync.Cond
	pending []push
}

func newPushQueue() *pushQueue {
	queue := &pushQueue{}
	queue.ready = sync.NewCond(&queue.mutex)
	return queue
}

func (queue *pushQueue) add(pushes []push) {
	queue.mutex.Lock()
	queue.pending = append(queue.pending, pushes...)
	queue.mutex.Unlock()
	queue.ready.Broadcast()
}

func (queue *pushQueue) take() push {
	queue.mutex.Lock()
	defer queue.mutex.Unlock()
	for len(queue.pending) == 0 {
		queue.ready.Wait()
	}
	next := queue.pending[0]
	queue.pending[0] = push{}
	queue.pending = queue.pending[1:]
	if len(queue.pending) == 0 {
		queue.pending = nil // let the drained backing array go
	}
	return next
}

type service struct {
	apiKey      string
	baseURL     string
	topic       string
	client      *http.Client
	signer      *signer
	queue       *pushQueue
	dropReports float64

	mutex          sync.Mutex
	random         *mathrand.Rand
	startTokens    map[string]*tokenList // group -> devices' push-to-start tokens by extId
	groups         map[string]*tokenList // group -> activities' update tokens by activityId
	updates        int
	droppedReports int
	failures       map[string]int

	pushes atomic.Int64
}

func (service *service) ServeHTTP(writer http.ResponseWriter, request *http.Request) {
	status, answer := service.route(request)
	payload, _ := json.Marshal(answer)
	writer.Header().Set("Content-Type", "application/json")
	writer.WriteHeader(status)
	writer.Write(payload)
}

func (service *service) route(request *http.Request) (int, map[string]any) {
	if request.Method != http.MethodPost {
		return 405, map[string]any{"error": "POST only"}
	}
	if request.Header.Get("X-netmera-api-key") != service.apiKey {
		return 401, map[string]any{"error": "bad api key"}
	}
	body, err := io.ReadAll(request.Body)
	if err != nil {
		return 400, map[string]any{"error": "unreadable body"}
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return 400, map[string]any{"error": "body is not a JSON object"}
	}
	text := func(name string) string {
		var value any
		json.Unmarshal(fields[name], &value)
		if value == nil {
			return ""
		}
		return fmt.Sprint(value)
	}
	switch request.URL.Path {
	case "/rest/3.0/live-activity/start-token":
		service.mutex.Lock()
		listFor(service.startTokens, text("groupId")).put(text("extId"), text("token"))
		service.mutex.Unlock()
		return 200, map[string]any{"registered": true}
	case "/rest/3.0/live-activity/register":
		service.mutex.Lock()
		defer service.mutex.Unlock()
		if service.random.Float64() < service.dropReports {
			service.droppedReports++
			return 200, map[string]any{"registered": true} // a lost report: answered, never stored
		}
		listFor(service.groups, text("groupId")).put(text("activityId"), text("token"))
		return 200, map[string]any{"registered": true}
	case "/rest/3.0/live-activity/close":
		service.mutex.Lock()
		listFor(service.groups, text("groupId")).remove(text("activityId"))
		service.mutex.Unlock()
		return 200, map[string]any{"closed": true}
	case "/rest/3.0/sendBulkNotification":
		return service.start(body)
	case "/rest/3.0/update-live-activity":
		return service.update(fields, text)
	}
	return 404, map[string]any{"error": "no such route"}
}

func listFor(lists map[string]*tokenList, group string) *tokenList {
	list := lists[group]
	if list == nil {
		list = &tokenList{index: map[string]int{}}
		lists[group] = list
	}
	return list
}

// start is the operator's start: a push-to-start push to each device of the target group.
func (service *service) start(body []byte) (int, map[string]any) {
	var call struct {
		Message struct {
			Title           string          `json:"title"`
			Text            string          `json:"text"`
			ContentState    json.RawMessage `json:"contentState"`
			LiveActAttr     json.RawMessage `json:"liveActAttr"`
			LiveActAttrType string          `json:"liveActAttrType"`
		} `json:"message"`
		Target struct {
			GroupID any `json:"groupId"`
		} `json:"target"`
	}
	if json.Unmarshal(body, &call) != nil {
		return 400, map[string]any{"error": "not a bulk notification"}
	}
	service.mutex.Lock()
	tokens := listFor(service.startTokens, fmt.Sprint(call.Target.GroupID)).live()
	service.mutex.Unlock()
	aps := map[string]any{
		"timestamp":        time.Now().Unix(),
		"event":            "start",
		"content-state":    orEmpty(call.Message.ContentState),
		"attributes-type":  call.Message.LiveActAttrType,
		"attributes":       orEmpty(call.Message.LiveActAttr),
		"alert":            map[string]string{"title": call.Message.Title, "body": call.Message.Text},
		"input-push-token": 1,
	}
	service.fanOut(tokens, map[string]any{"aps": aps}, "10")
	return 202, map[string]any{"accepted": len(tokens)}
}

// update is one update call: a push to every activity of the group the service knows.
func (service *service) update(fields map[string]json.RawMessage, text func(string) string) (int, map[string]any) {
	service.mutex.Lock()
	service.updates++
	group, known := service.groups[text("groupId")]
	var tokens []string
	if known {
		tokens = group.live()
	}
	service.mutex.Unlock()
	if !known {
		return 404, map[string]any{"error": "unknown group"}
	}
	event := "update"
	if strings.EqualFold(text("action"), "END") {
		event = "end"
	}
	priority := text("priority")
	if priority == "" {
		priority = "10"
	}
	aps := map[string]any{
		"timestamp":     time.Now().Unix(),
		"event":         event,
		"content-state": orEmpty(fields["contentState"]),
	}
	service.fanOut(tokens, map[string]any{"aps": aps}, priority)
	return 202, map[string]any{"accepted": len(tokens)}
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// fanOut queues one push of message to each token: the body is encoded once, as a service
// sending one message to a group does.
func (service *service) fanOut(tokens []string, message map[string]any, priority string) {
	body, _ := json.Marshal(message)
	pushes := make([]push, len(tokens))
	for i, token := range tokens {
		pushes[i] = push{token: token, body: body, priority: priority}
	}
	service.queue.add(pushes)
}

// work is one worker: it sends the queue's pushes one at a time, for ever.
func (service *service) work() {
	for {
		next := service.queue.take()
		failure := service.send(next)
		service.pushes.Add(1)
		if failure != "" {
			service.mutex.Lock()
			service.failures[failure]++
			service.mutex.Unlock()
		}
	}
}

// send posts one push to APNs; the failure's reason, or "" for a 200.
func (service *service) send(next push) string {
	request, _ := http.NewRequest(http.MethodPost, service.baseURL+"/3/device/"+next.token, bytes.NewReader(next.body))
	request.Header.Set("authorization", "bearer "+service.signer.token())
	request.Header.Set("apns-push-type", "liveactivity")
	request.Header.Set("apns-topic", service.topic)
	request.Header.Set("apns-priority", next.priority)
	response, err := service.client.Do(request)
	if err != nil {
		// The URL names the token; the cause alone keeps the failures counted by kind.
		if cause := errors.Unwrap(err); cause != nil {
			err = cause
		}
		return "transport: " + err.Error()
	}
	defer response.Body.Close()
	answer, _ := io.ReadAll(response.Body)
	if response.StatusCode == 200 {
		return ""
	}
	var reason struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(answer, &reason)
	return fmt.Sprintf("%d %s", response.StatusCode, reason.Reason)
}

func (service *service) summary() string {
	service.mutex.Lock()
	defer service.mutex.Unlock()
	reasons := make([]string, 0, len(service.failures))
	for reason, count := range service.failures {
		reasons = append(reasons, fmt.Sprintf("%s: %d", reason, count))
	}
	sort.Strings(reasons)
	failures := strings.Join(reasons, ", ")
	if failures == "" {
		failures = "none"
	}
	return fmt.Sprintf("%d update calls, %d pushes, failures: %s, token reports dropped: %d",
		service.updates, service.pushes.Load(), failures, service.droppedReports)
}

// apnsClient is an HTTP/2 client to APNs trusting PUSHBENCH_CA_FILE, over at most connections
// connections.
func apnsClient(connections int) (*http.Client, error) {
	roots := x509.NewCertPool()
	if path := os.Getenv("PUSHBENCH_CA_FILE"); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading PUSHBENCH_CA_FILE: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, errors.New("PUSHBENCH_CA_FILE holds no certificate")
		}
	} else if system, err := x509.SystemCertPool(); err == nil {
		roots = system
	}
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		MaxConnsPerHost:     connections,
		MaxIdleConnsPerHost: connections,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: transport, Timeout: 30 * time.Second}, nil
}

// signer makes the ES256 provider token and makes it again every 40 minutes (APNs takes one
// from 20 to 60 minutes old).
type signer struct {
	key    *ecdsa.PrivateKey
	keyID  string
	teamID string

	mutex    sync.Mutex
	current  string
	issuedAt time.Time
}

func newSigner() (*signer, error) {
	var pemText []byte
	if path := os.Getenv("PUSHBENCH_AUTH_KEY"); path != "" {
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading PUSHBENCH_AUTH_KEY: %w", err)
		}
		pemText = text
	} else {
		pemText = []byte(os.Getenv("PUSHBENCH_AUTH_KEY_PEM"))
	}
	block, _ := pem.Decode(pemText)
	if block == nil {
		return nil, errors.New("the provider key is not PEM (PUSHBENCH_AUTH_KEY or PUSHBENCH_AUTH_KEY_PEM)")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the provider key is not PKCS#8: %w", err)
	}
	key, ok := parsed.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("the provider key is not an EC key")
	}
	return &signer{key: key, keyID: mustEnv("PUSHBENCH_KEY_ID"), teamID: mustEnv("PUSHBENCH_TEAM_ID")}, nil
}

func (signer *signer) token() string {
	signer.mutex.Lock()
	defer signer.mutex.Unlock()
	if signer.current != "" && time.Since(signer.issuedAt) < 40*time.Minute {
		return signer.current
	}
	now := time.Now()
	encode := base64.RawURLEncoding.EncodeToString
	header := encode([]byte(fmt.Sprintf(`{"alg":"ES256","kid":"%s"}`, signer.keyID)))
	claims := encode([]byte(fmt.Sprintf(`{"iss":"%s","iat":%d}`, signer.teamID, now.Unix())))
	digest := sha256.Sum256([]byte(header + "." + claims))
	r, s, err := ecdsa.Sign(rand.Reader, signer.key, digest[:])
	if err != nil {
		log.Fatalf("signing the provider token: %v", err)
	}
	signature := append(fixed32(r), fixed32(s)...)
	signer.current = header + "." + claims + "." + encode(signature)
	signer.issuedAt = now
	return signer.current
}

// fixed32 is n as 32 big-endian bytes: ES256's signature is r and s so, back to back.
func fixed32(n *big.Int) []byte {
	out := make([]byte, 32)
	n.FillBytes(out)
	return out
}
