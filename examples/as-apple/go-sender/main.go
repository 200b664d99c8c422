// A sender as a Go service ships it: the standard library only (net/http's HTTP/2 client,
// crypto/ecdsa for the ES256 provider token), Apple's host hard-coded.
//
//	cd examples/as-apple/go-sender && go build -o /tmp/go-sender .
//	pushbench profile --as-apple --requests 2000 -- /tmp/go-sender
//
// It reads no PUSHBENCH_* variable for the host or the CA: it dials api.push.apple.com and
// trusts what Go trusts. Under --as-apple that name is the mock, and Go's crypto/x509 reads the
// mock's CA from SSL_CERT_FILE. Its work (PUSHBENCH_EVENTS, PUSHBENCH_START_AT) and its key
// (PUSHBENCH_AUTH_KEY, _KEY_ID, _TEAM_ID) come from the contract, as a real service's come from
// its queue and its secrets.
package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

const apns = "https://api.push.apple.com" // hard-coded, as it ships

// concurrency is the pushes in flight at most.
const concurrency = 100

// event is one line of the events file (docs/profile.md).
type event struct {
	AtS        float64         `json:"at_s"`
	Token      string          `json:"token"`
	PushType   string          `json:"push_type"`
	Topic      string          `json:"topic"`
	Priority   int             `json:"priority"`
	Expiration int64           `json:"expiration"`
	Payload    json.RawMessage `json:"payload"`
}

func main() {
	events := readEvents(os.Getenv("PUSHBENCH_EVENTS"))
	startAt, err := strconv.ParseFloat(os.Getenv("PUSHBENCH_START_AT"), 64)
	if err != nil {
		log.Fatalf("PUSHBENCH_START_AT: %v", err)
	}
	bearer := "bearer " + providerToken()
	// The default transport speaks HTTP/2 over TLS and trusts the system's roots, or
	// SSL_CERT_FILE's.
	client := &http.Client{Timeout: 30 * time.Second}
	var failed atomic.Int64
	var sending sync.WaitGroup
	gate := make(chan struct{}, concurrency)
	for index, pending := range events {
		due := time.UnixMicro(int64((startAt + pending.AtS) * 1e6))
		time.Sleep(time.Until(due))
		gate <- struct{}{}
		sending.Add(1)
		send := func(pending event) {
			defer sending.Done()
			defer func() { <-gate }()
			if !push(client, pending, bearer) {
				failed.Add(1)
			}
		}
		// APNs allows one stream on a new connection until a valid provider token has been
		// answered: the first push goes alone.
		if index == 0 {
			send(pending)
		} else {
			go send(pending)
		}
	}
	sending.Wait()
	fmt.Printf("sent %d pushes to %s, %d failed\n", len(events), apns, failed.Load())
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

// push sends one push; whether APNs accepted it.
func push(client *http.Client, pending event, bearer string) bool {
	request, err := http.NewRequest(http.MethodPost, apns+"/3/device/"+pending.Token, bytes.NewReader(pending.Payload))
	if err != nil {
		log.Fatalf("request: %v", err)
	}
	request.Header.Set("authorization", bearer)
	request.Header.Set("apns-push-type", pending.PushType)
	request.Header.Set("apns-topic", pending.Topic)
	request.Header.Set("apns-priority", strconv.Itoa(pending.Priority))
	request.Header.Set("apns-expiration", strconv.FormatInt(pending.Expiration, 10))
	answer, err := client.Do(request)
	if err != nil {
		fmt.Fprintf(os.Stderr, "push failed: %v\n", err)
		return false
	}
	defer answer.Body.Close()
	_, _ = io.Copy(io.Discard, answer.Body)
	return answer.StatusCode == http.StatusOK
}

func readEvents(path string) []event {
	file, err := os.Open(path)
	if err != nil {
		log.Fatalf("PUSHBENCH_EVENTS: %v", err)
	}
	defer file.Close()
	var events []event
	lines := bufio.NewScanner(file)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var parsed event
		if err := json.Unmarshal(lines.Bytes(), &parsed); err != nil {
			log.Fatalf("events line %d: %v", len(events)+1, err)
		}
		events = append(events, parsed)
	}
	return events
}

// providerToken is the ES256 JWT APNs takes as a provider token, signed with the .p8 key.
func providerToken() string {
	text, err := os.ReadFile(os.Getenv("PUSHBENCH_AUTH_KEY"))
	if err != nil {
		log.Fatalf("PUSHBENCH_AUTH_KEY: %v", err)
	}
	block, _ := pem.Decode(text)
	if block == nil {
		log.Fatal("PUSHBENCH_AUTH_KEY is not PEM")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	key, isEC := parsed.(*ecdsa.PrivateKey)
	if err != nil || !isEC {
		log.Fatalf("PUSHBENCH_AUTH_KEY is not a PKCS#8 EC key: %v", err)
	}
	encode := base64.RawURLEncoding.EncodeToString
	header := encode([]byte(`{"alg":"ES256","kid":"` + os.Getenv("PUSHBENCH_KEY_ID") + `"}`))
	claims := encode([]byte(fmt.Sprintf(`{"iss":"%s","iat":%d}`, os.Getenv("PUSHBENCH_TEAM_ID"), time.Now().Unix())))
	digest := sha256.Sum256([]byte(header + "." + claims))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		log.Fatalf("signing: %v", err)
	}
	signature := make([]byte, 64)
	r.FillBytes(signature[:32])
	s.FillBytes(signature[32:])
	return header + "." + claims + "." + encode(signature)
}
