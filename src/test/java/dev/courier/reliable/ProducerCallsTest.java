package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.courier.client.CallSignature;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls to a producer go to the address that was checked, under the producer's name: names no real resolver
 * knows ({@code producer.test}) are resolved by the test's resolver only, so a call that reached the server
 * cannot have resolved the name again. Over https the certificate is still checked against the name.
 */
class ProducerCallsTest {

    private static final String SECRET = CallSignature.newSecret();
    private static final CallTargets.Resolver TEST_NAMES = host -> {
        if (host.endsWith(".test")) {
            return new InetAddress[] {InetAddress.getByName("127.0.0.1")};
        }
        throw new java.net.UnknownHostException(host);
    };

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void should_call_the_checked_address_with_the_name_in_the_host_header() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        serve();
        int port = server.getAddress().getPort();

        HttpResponse<String> answer = calls(null)
                .call(URI.create("http://producer.test:" + port + "/cb?id=m1"), SECRET, "GET", "", 1_000)
                .get(10, TimeUnit.SECONDS);

        assertEquals(200, answer.statusCode());
        assertEquals(List.of("producer.test:" + port + " /cb?id=m1 signed"), seen);
    }

    @Test
    void should_check_the_certificate_against_the_name_over_https() throws Exception {
        SSLContext tls = tls("producer.test", "dns:producer.test");
        HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        server = https;
        serve();
        int port = server.getAddress().getPort();
        ProducerCalls calls = calls(trust);

        HttpResponse<String> answer = calls.call(
                        URI.create("https://producer.test:" + port + "/cb?id=m2"), SECRET, "POST", "{}", 1_000)
                .get(10, TimeUnit.SECONDS);
        assertEquals(200, answer.statusCode());
        assertEquals(List.of("producer.test:" + port + " /cb?id=m2 signed"), seen);

        // The same server and certificate under another name: refused by the TLS check, not called.
        CompletableFuture<HttpResponse<String>> other =
                calls.call(URI.create("https://other.test:" + port + "/cb?id=m3"), SECRET, "POST", "{}", 1_000);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> other.get(10, TimeUnit.SECONDS));
        ProducerCalls.Failed why = assertInstanceOf(ProducerCalls.Failed.class, failed.getCause());
        assertTrue(why.getMessage().contains("no answer from https://other.test"), why.getMessage());
        assertEquals(1, seen.size(), "the handler never ran for other.test: " + seen);
    }

    /**
     * A certificate for the address the name resolved to, not for the name: the JDK would accept it for a peer known
     * by its address (its fallback after the SNI name fails), so a call knows its peer by the name.
     */
    @Test
    void should_refuse_a_certificate_for_the_address_instead_of_the_name() throws Exception {
        SSLContext tls = tls("127.0.0.1", "ip:127.0.0.1");
        HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        server = https;
        serve();
        CompletableFuture<HttpResponse<String>> call = calls(trust)
                .call(
                        URI.create(
                                "https://producer.test:" + server.getAddress().getPort() + "/cb?id=m4"),
                        SECRET,
                        "GET",
                        "",
                        1_000);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        assertTrue(failed.getCause().getMessage().contains("SSLHandshakeException"), failed::toString);
        assertEquals(List.of(), seen, "the handler never ran");
    }

    @Test
    void should_refuse_plain_http_to_a_host_not_named_for_it() throws Exception {
        ReliableSettings settings = settings();
        settings.plainHttpHosts = Optional.empty();
        CompletableFuture<HttpResponse<String>> call = new ProducerCalls(settings, TEST_NAMES, null)
                .call(URI.create("http://producer.test:1/cb"), SECRET, "GET", "", 1_000);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        assertTrue(failed.getCause().getMessage().startsWith("not called: the URL is plain http"), failed::toString);
    }

    private void serve() {
        server.createContext("/cb", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            URI uri = exchange.getRequestURI();
            boolean signed = CallSignature.verify(
                    SECRET,
                    exchange.getRequestHeaders().getFirst(CallSignature.TIMESTAMP),
                    exchange.getRequestHeaders().getFirst(CallSignature.SIGNATURE),
                    exchange.getRequestMethod(),
                    uri.getRawPath() + "?" + uri.getRawQuery(),
                    new String(body, StandardCharsets.UTF_8),
                    Instant.now(),
                    Duration.ofMinutes(1));
            seen.add(exchange.getRequestHeaders().getFirst("Host") + " " + uri.getRawPath() + "?" + uri.getRawQuery()
                    + (signed ? " signed" : " unsigned"));
            byte[] answer = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
    }

    private static ReliableSettings settings() {
        ReliableSettings settings = new ReliableSettings();
        settings.allowedUrlHosts = List.of("producer.test", "other.test");
        settings.plainHttpHosts = Optional.of(List.of("producer.test"));
        settings.callTimeout = Duration.ofSeconds(5);
        return settings;
    }

    private static ProducerCalls calls(TrustManager[] trust) {
        return new ProducerCalls(settings(), TEST_NAMES, trust);
    }

    /** Trusts the certificate {@link #tls} made last. */
    private TrustManager[] trust;

    /** A key and certificate for {@code subjectAlternativeName} only; {@link #trust} trusts it. */
    private SSLContext tls(String name, String subjectAlternativeName) throws Exception {
        Path store = dir.resolve("producer.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "producer",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=" + name,
                        "-ext",
                        "san=" + subjectAlternativeName,
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, keytool.waitFor(), output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(store.toFile())) {
            keys.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, "changeit".toCharArray());
        TrustManagerFactory trusted = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trusted.init(keys);
        trust = trusted.getTrustManagers();
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trust, null);
        Files.deleteIfExists(store);
        return context;
    }
}
