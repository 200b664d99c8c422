// A sender as a JVM service ships it: java.net.http.HttpClient over HTTP/2 and the JDK's own
// ECDSA, Apple's host hard-coded.
//
//   javac -d /tmp/java-sender examples/as-apple/JavaSender.java
//   pushbench profile --as-apple --requests 2000 -- java -cp /tmp/java-sender JavaSender
//
// It reads no PUSHBENCH_* variable for the host or the CA: it dials api.push.apple.com and
// trusts what the JVM trusts. Under --as-apple that name is the mock, and the JVM trusts the
// mock's CA from the PKCS#12 truststore that JAVA_TOOL_OPTIONS names (javax.net.ssl.trustStore).
// Its work (PUSHBENCH_EVENTS, PUSHBENCH_START_AT) and its key (PUSHBENCH_AUTH_KEY, _KEY_ID,
// _TEAM_ID) come from the contract, as a real service's come from its queue and its secrets.
// The events file is read with regular expressions: the JDK has no JSON parser.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class JavaSender {
    private static final String APNS = "https://api.push.apple.com"; // hard-coded, as it ships
    private static final int CONCURRENCY = 100;
    private static final Pattern MEMBER = Pattern.compile("\"(at_s|token|push_type|topic|priority|expiration)\":\"?([^\",]*)");

    public static void main(String[] arguments) throws Exception {
        List<String> events = Files.readAllLines(Path.of(System.getenv("PUSHBENCH_EVENTS")));
        double startAt = Double.parseDouble(System.getenv("PUSHBENCH_START_AT"));
        String bearer = "bearer " + providerToken();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
        Semaphore gate = new Semaphore(CONCURRENCY);
        AtomicInteger failed = new AtomicInteger();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int index = 0; index < events.size(); index++) {
            String line = events.get(index);
            java.util.Map<String, String> members = new java.util.HashMap<>();
            Matcher matcher = MEMBER.matcher(line);
            while (matcher.find()) members.putIfAbsent(matcher.group(1), matcher.group(2));
            String payload = line.substring(line.indexOf("\"payload\":") + 10, line.length() - 1);
            long wait = (long) ((startAt + Double.parseDouble(members.get("at_s"))) * 1000) - System.currentTimeMillis();
            if (wait > 0) Thread.sleep(wait);
            HttpRequest request = HttpRequest.newBuilder(URI.create(APNS + "/3/device/" + members.get("token")))
                    .timeout(Duration.ofSeconds(30))
                    .header("authorization", bearer)
                    .header("apns-push-type", members.get("push_type"))
                    .header("apns-topic", members.get("topic"))
                    .header("apns-priority", members.get("priority"))
                    .header("apns-expiration", members.get("expiration"))
                    .POST(HttpRequest.BodyPublishers.ofString(payload, StandardCharsets.UTF_8))
                    .build();
            gate.acquire();
            CompletableFuture<Void> answered = client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                    .handle((response, error) -> {
                        if (error != null) System.err.println("push failed: " + error);
                        if (error != null || response.statusCode() != 200) failed.incrementAndGet();
                        gate.release();
                        return null;
                    });
            sent.add(answered);
            // APNs allows one stream on a new connection until a valid provider token has been
            // answered: the first push goes alone.
            if (index == 0) answered.join();
        }
        CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])).join();
        System.out.println("sent " + events.size() + " pushes to " + APNS + ", " + failed.get() + " failed");
        System.exit(failed.get() == 0 ? 0 : 1);
    }

    /** The ES256 JWT APNs takes as a provider token; P1363 is JWS's raw r||s. */
    private static String providerToken() throws Exception {
        String pem = Files.readString(Path.of(System.getenv("PUSHBENCH_AUTH_KEY")));
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        Signature signer = Signature.getInstance("SHA256withECDSAinP1363Format");
        signer.initSign(KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der)));
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        String header = encoder.encodeToString(
                ("{\"alg\":\"ES256\",\"kid\":\"" + System.getenv("PUSHBENCH_KEY_ID") + "\"}").getBytes(StandardCharsets.UTF_8));
        String claims = encoder.encodeToString(("{\"iss\":\"" + System.getenv("PUSHBENCH_TEAM_ID") + "\",\"iat\":"
                + System.currentTimeMillis() / 1000 + "}").getBytes(StandardCharsets.UTF_8));
        signer.update((header + "." + claims).getBytes(StandardCharsets.UTF_8));
        return header + "." + claims + "." + encoder.encodeToString(signer.sign());
    }
}
