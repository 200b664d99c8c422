// A sender as a Node service ships it: Node's built-in http2 and crypto only, Apple's host
// hard-coded.
//
//   pushbench profile --as-apple --requests 2000 -- node examples/as-apple/node_sender.js
//
// It reads no PUSHBENCH_* variable for the host or the CA: it dials api.push.apple.com and
// trusts what Node trusts. Under --as-apple that name is the mock, and Node adds the mock's CA
// to its roots from NODE_EXTRA_CA_CERTS. Its work (PUSHBENCH_EVENTS, PUSHBENCH_START_AT) and its
// key (PUSHBENCH_AUTH_KEY, _KEY_ID, _TEAM_ID) come from the contract, as a real service's come
// from its queue and its secrets.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http2 = require('http2');

const APNS = 'https://api.push.apple.com'; // hard-coded, as it ships
const CONCURRENCY = 100;
const env = process.env;

// The ES256 JWT APNs takes as a provider token; ieee-p1363 is JWS's raw r||s.
function providerToken() {
  const encode = (text) => Buffer.from(text).toString('base64url');
  const header = encode(JSON.stringify({ alg: 'ES256', kid: env.PUSHBENCH_KEY_ID }));
  const claims = encode(JSON.stringify({ iss: env.PUSHBENCH_TEAM_ID, iat: Math.floor(Date.now() / 1000) }));
  const key = fs.readFileSync(env.PUSHBENCH_AUTH_KEY);
  const signature = crypto.sign('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${claims}.${signature.toString('base64url')}`;
}

// Sends one push on `session`; resolves to its status (0 when the stream failed).
function push(session, event, bearer) {
  return new Promise((resolve) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': `/3/device/${event.token}`,
      authorization: bearer,
      'apns-push-type': event.push_type,
      'apns-topic': event.topic,
      'apns-priority': String(event.priority),
      'apns-expiration': String(event.expiration),
    });
    let status = 0;
    stream.on('response', (headers) => { status = headers[':status']; });
    stream.on('error', (error) => { console.error(`push failed: ${error.message}`); });
    stream.on('close', () => resolve(status));
    stream.resume();
    stream.end(JSON.stringify(event.payload));
  });
}

async function main() {
  const events = fs.readFileSync(env.PUSHBENCH_EVENTS, 'utf8').split('\n').filter(Boolean).map(JSON.parse);
  const startAt = Number(env.PUSHBENCH_START_AT);
  const bearer = `bearer ${providerToken()}`;
  const session = http2.connect(APNS);
  session.on('error', (error) => { console.error(`connection failed: ${error.message}`); process.exitCode = 1; });
  let failed = 0;
  let inFlight = 0;
  let freed = () => {};
  const sent = [];
  for (const [index, event] of events.entries()) {
    const wait = (startAt + event.at_s) * 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight >= CONCURRENCY) await new Promise((resolve) => { freed = resolve; });
    inFlight++;
    const answered = push(session, event, bearer).then((status) => {
      if (status !== 200) failed++;
      inFlight--;
      freed();
    });
    sent.push(answered);
    // APNs allows one stream on a new connection until a valid provider token has been
    // answered: the first push goes alone.
    if (index === 0) await answered;
  }
  await Promise.all(sent);
  session.close();
  console.log(`sent ${events.length} pushes to ${APNS}, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

main();
