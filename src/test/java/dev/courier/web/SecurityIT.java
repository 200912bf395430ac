package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.DatabaseIndependent;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Nobody calls Courier without being allowed to. Every operation the OpenAPI document lists is called as an
 * anonymous caller (401), as users who lack its role (403) and as a user who holds it (neither). The expected
 * roles are the table below: an operation added without an entry, or without {@code @RolesAllowed}, fails here.
 */
@DatabaseIndependent
@ExtendWith(ArquillianExtension.class)
class SecurityIT {

    private static final Set<String> ADMIN = Set.of(Roles.ADMIN);
    private static final Set<String> PRODUCER = Set.of(Roles.PRODUCER);
    private static final Set<String> CONSUMER = Set.of(Roles.CONSUMER);
    private static final Set<String> ADMIN_OR_CONSUMER = Set.of(Roles.ADMIN, Roles.CONSUMER);
    private static final Set<String> ANY_ROLE = Set.of(Roles.ADMIN, Roles.PRODUCER, Roles.CONSUMER);
    private static final Set<String> OPEN = Set.of();

    /** Who may call what: "METHOD path" as the OpenAPI document spells it. */
    private static final Map<String, Set<String>> EXPECTED = new TreeMap<>(Map.ofEntries(
            Map.entry("GET /api/audit", ADMIN),
            Map.entry("GET /api/console/metrics", ADMIN),
            Map.entry("POST /api/bench/queue", ADMIN),
            Map.entry("POST /api/bench/queue-cycle", ADMIN),
            Map.entry("POST /api/bench/metrics-refresh", ADMIN),
            Map.entry("POST /api/bench/reliable", ADMIN),
            Map.entry("GET /api/messages", ANY_ROLE),
            Map.entry("POST /api/messages", PRODUCER),
            Map.entry("GET /api/messages/{id}", ANY_ROLE),
            Map.entry("DELETE /api/messages/{id}", PRODUCER),
            Map.entry("POST /api/messages/{id}/confirm", PRODUCER),
            Map.entry("POST /api/messages/{id}/consumed", CONSUMER),
            Map.entry("POST /api/messages/reports", CONSUMER),
            Map.entry("POST /api/messages/settles", PRODUCER),
            Map.entry("POST /api/messages/{id}/failed", CONSUMER),
            Map.entry("POST /api/messages/{id}/deliveries/{subscriber}/replay", ADMIN),
            Map.entry("POST /api/messages/{id}/resume", ADMIN),
            Map.entry("GET /api/producers", ADMIN),
            Map.entry("POST /api/producers", ADMIN),
            Map.entry("GET /api/producers/{name}", ADMIN),
            Map.entry("POST /api/producers/{name}/secret", ADMIN),
            Map.entry("GET /api/queues", ANY_ROLE),
            Map.entry("GET /api/queues/{queue}", ANY_ROLE),
            Map.entry("PUT /api/queues/{queue}", ADMIN),
            Map.entry("DELETE /api/queues/{queue}", ADMIN),
            Map.entry("POST /api/queues/{queue}/ack", CONSUMER),
            Map.entry("GET /api/queues/{queue}/dead", ADMIN),
            Map.entry("DELETE /api/queues/{queue}/dead", ADMIN),
            Map.entry("POST /api/queues/{queue}/dead/replay", ADMIN),
            Map.entry("GET /api/queues/{queue}/dead/{id}", ADMIN),
            Map.entry("GET /api/queues/{queue}/messages", ADMIN_OR_CONSUMER),
            Map.entry("POST /api/queues/{queue}/messages", PRODUCER),
            Map.entry("GET /api/queues/{queue}/messages/{id}", ADMIN_OR_CONSUMER),
            Map.entry("DELETE /api/queues/{queue}/messages/{id}", CONSUMER),
            Map.entry("POST /api/queues/{queue}/messages/{id}/release", CONSUMER),
            Map.entry("POST /api/queues/{queue}/messages/{id}/renew", CONSUMER),
            Map.entry("POST /api/queues/{queue}/receive", CONSUMER),
            // The demo upstream's check-back: Courier calls it without credentials, as any producer's URL.
            Map.entry("GET /api/scenario/check-back/{service}", OPEN),
            Map.entry("GET /api/scenario/consistency", ADMIN),
            Map.entry("GET /api/scenario/slowdown", ADMIN),
            Map.entry("PUT /api/scenario/slowdown", ADMIN),
            Map.entry("POST /api/scenario/stock", ADMIN),
            // The lab's orders service, an application of its own beside Courier, on the same registry.
            Map.entry("POST /lab-orders/api/orders", PRODUCER),
            Map.entry("GET /lab-orders/api/orders/{id}", ANY_ROLE),
            Map.entry("GET /lab-orders/api/xa/lock-holds", ADMIN),
            Map.entry("DELETE /lab-orders/api/xa/lock-holds", ADMIN),
            Map.entry("GET /lab-orders/api/xa/slowdown", ADMIN),
            Map.entry("PUT /lab-orders/api/xa/slowdown", ADMIN),
            Map.entry("GET /api/topics", ANY_ROLE),
            Map.entry("GET /api/topics/{topic}", ANY_ROLE),
            Map.entry("PUT /api/topics/{topic}", ADMIN),
            Map.entry("POST /api/topics/{topic}/subscribers", ADMIN),
            Map.entry("POST /api/topics/{topic}/subscribers/{name}/broker-account", ADMIN),
            Map.entry("POST /api/twophase/probes", ADMIN),
            Map.entry("GET /api/twophase/probes/{id}", ADMIN)));

    /** The users bin/credentials --test made, and the roles their groups grant. */
    private static final Map<String, Set<String>> USERS =
            Map.of("admin", ANY_ROLE, "producer", PRODUCER, "consumer", CONSUMER, "nobody", OPEN);

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @AfterEach
    void dropProbeQueue() {
        http.delete("api/queues/security_probe");
    }

    @Test
    void should_refuse_every_operation_to_callers_without_its_role_and_let_those_with_it_through() {
        Set<String> listed = operations();
        assertEquals(
                new TreeSet<>(EXPECTED.keySet()), listed, "every operation has an entry, every entry an operation");
        List<String> wrong = new ArrayList<>();
        for (String operation : listed) {
            Set<String> allowed = EXPECTED.get(operation);
            int anonymous = call(http.anonymous(), operation).status();
            if (allowed.isEmpty()) {
                continue; // open: nothing to refuse
            }
            if (anonymous != 401) {
                wrong.add(operation + " anonymous: " + anonymous);
            }
            for (Map.Entry<String, Set<String>> user : USERS.entrySet()) {
                boolean holds = user.getValue().stream().anyMatch(allowed::contains);
                int status = call(http.as(user.getKey()), operation).status();
                if (holds ? status == 401 || status == 403 : status != 403) {
                    wrong.add(operation + " as " + user.getKey() + ": " + status);
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void should_answer_401_and_403_with_a_problem_that_names_nothing_that_exists() {
        Http.Response anonymous = http.anonymous().get("api/queues");
        assertEquals(401, anonymous.status(), anonymous::toString);
        assertTrue(anonymous.contentType().startsWith("application/problem+json"), anonymous::toString);
        Http.Response unknown = http.anonymous().get("api/no-such-thing");
        assertEquals(401, unknown.status(), "an unknown path looks the same to an anonymous caller: " + unknown);
        assertEquals(anonymous.json(), unknown.json());

        Http.Response wrongPassword = http.anonymous()
                .send(HttpRequest.newBuilder(http.uri("api/queues"))
                        .header("Authorization", Http.basic("admin", "not-the-password"))
                        .GET());
        assertEquals(401, wrongPassword.status(), wrongPassword::toString);

        Http.Response forbidden = http.as("consumer").put("api/queues/security_probe", "{}");
        assertEquals(403, forbidden.status(), forbidden::toString);
        assertTrue(forbidden.contentType().startsWith("application/problem+json"), forbidden::toString);
        JsonObject problem = forbidden.json();
        assertEquals(403, problem.getInt("status"));
        assertFalse(problem.getString("detail").contains("security_probe"), problem::toString);
        assertEquals(404, http.get("api/queues/security_probe").status(), "a refused definition defined nothing");
    }

    @Test
    void should_refuse_a_password_over_plain_http_from_another_host_and_take_it_over_https() throws Exception {
        String host = Http.externalAddress();
        Http remote = new Http("http://" + host + ":" + http.uri("/").getPort() + "/");

        Http.Response refused = remote.get("api/queues");
        assertEquals(403, refused.status(), refused::toString);
        assertEquals("urn:courier:problem:https-required", refused.json().getString("type"), refused::toString);
        Http.Response wrong = remote.send(HttpRequest.newBuilder(remote.uri("api/queues"))
                .header("Authorization", Http.basic("admin", "wrong"))
                .GET());
        assertEquals(403, wrong.status(), "a wrong password is refused the same way: " + wrong);
        Http.Response claimsHttps = remote.send(HttpRequest.newBuilder(remote.uri("api/queues"))
                .header("$WSIS", "true") // the WebSphere plug-in's "this came over HTTPS", trusted from no one
                .GET());
        assertEquals(403, claimsHttps.status(), "a header cannot make plain HTTP count as HTTPS: " + claimsHttps);
        Http.Response console = remote.get("console/index.html");
        assertEquals(403, console.status(), "the console's login too: " + console);
        assertEquals("urn:courier:problem:https-required", console.json().getString("type"), console::toString);
        // Without credentials, no password prompt to type the password into in clear (issue 50, item 4): before,
        // 401 with a Basic challenge, and the password crossed the network before the 403.
        for (String path : List.of("console/", "api/queues")) {
            java.net.http.HttpResponse<String> prompt = java.net.http.HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(remote.uri(path)).GET().build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(403, prompt.statusCode(), path + ": " + prompt.body());
            assertTrue(prompt.headers().firstValue("WWW-Authenticate").isEmpty(), path + ": " + prompt.headers());
            assertTrue(prompt.body().contains("urn:courier:problem:https-required"), prompt.body());
        }
        assertEquals(401, http.anonymous().get("api/queues").status(), "from this machine the login is asked for");
        assertEquals(200, http.get("api/queues").status(), "from this machine, plain HTTP is accepted");
        Http remoteManagement =
                new Http("http://" + host + ":" + Http.management().uri("/").getPort() + "/");
        assertThrows(
                java.io.UncheckedIOException.class,
                () -> remoteManagement.anonymous().get("health/ready"),
                "the management port is bound to this machine only");

        assertEquals(
                200,
                httpsStatus(host, "api/queues", http.authorization()),
                "over HTTPS a password is taken from anywhere");
    }

    @Test
    void should_lock_out_an_address_after_failed_logins_on_the_api_and_the_console_even_for_the_right_password()
            throws Exception {
        String host = Http.externalAddress();
        Thread.sleep(3_500); // earlier failures from this address (another test's wrong password) age out first
        String wrong = Http.basic("admin", "guess");
        String right = http.authorization();
        // The limit is 10 failures within the lockout (3 s in the tests), counted alike on /api and /console. This
        // address is no trusted proxy: the X-Forwarded-For each call carries names nobody, and moves nothing.
        for (int guess = 1; guess < 10; guess++) {
            String path = guess <= 5 ? "api/queues" : "console/index.html";
            assertEquals(
                    401,
                    Http.httpsGetForwarded(host, path, wrong, "198.51.100." + guess)
                            .status(),
                    "guess " + guess);
        }
        assertEquals(
                429,
                Http.httpsGetForwarded(host, "console/index.html", wrong, "198.51.100.10")
                        .status(),
                "the tenth failure locks the address out");
        assertEquals(429, httpsStatus(host, "console/index.html", right), "the right password learns nothing");
        assertEquals(
                429,
                Http.httpsGetForwarded(host, "api/queues", right, "198.51.100.11")
                        .status(),
                "the address that called is locked out, whatever client its header names");
        assertEquals(200, http.get("api/queues").status(), "other addresses are not locked out");

        // The audit trail has who tried, from where, and how many times; the lockout once.
        JsonObject first = dev.courier.testing.AuditEntries.newest(
                http,
                e -> e.getString("action").equals("login.failed")
                        && e.getString("target").equals("GET /api/queues from " + host)
                        && e.getString("detail").startsWith("failure 1 of 10"));
        assertEquals("admin", first.getString("principal"), first::toString);
        assertEquals(401, first.getInt("status"));
        JsonObject locked = dev.courier.testing.AuditEntries.newest(
                http,
                e -> e.getString("action").equals("login.locked-out")
                        && e.getString("target").endsWith(" from " + host));
        assertTrue(locked.getString("detail").startsWith("failure 10 of 10"), locked::toString);
        assertEquals("GET /console/index.html from " + host, locked.getString("target"));
        Thread.sleep(3_500);
        assertEquals(200, httpsStatus(host, "api/queues", right), "after the lockout");
    }

    @Test
    void should_lock_out_the_client_a_trusted_proxy_names_and_no_other_client_behind_it() {
        // The tests trust this machine's loopback address as a proxy (COURIER_HTTP_TRUSTED_PROXIES in the pom). The
        // forwarded clients are addresses of their own, with no failures before this test.
        String wrong = Http.basic("admin", "guess");
        String right = http.authorization();
        for (int guess = 1; guess < 10; guess++) {
            assertEquals(
                    401,
                    Http.httpsGetForwarded("localhost", "api/queues", wrong, "198.51.100.7")
                            .status());
        }
        assertEquals(
                429,
                Http.httpsGetForwarded("localhost", "api/queues", wrong, "198.51.100.7")
                        .status());
        assertEquals(
                429,
                Http.httpsGetForwarded("localhost", "api/queues", right, "198.51.100.7")
                        .status(),
                "the client the proxy named is locked out");
        assertEquals(
                200,
                Http.httpsGetForwarded("localhost", "api/queues", right, "198.51.100.8")
                        .status(),
                "another client behind the same proxy is not");
        assertEquals(200, http.get("api/queues").status(), "nor is the proxy itself");
    }

    @Test
    void should_have_the_broker_take_its_generated_password_and_not_the_old_default() {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                dev.courier.testing.Broker.PASSWORD.equals("courier"),
                "the test broker was made before passwords were generated");
        String url = "tcp://127.0.0.1:" + System.getProperty("it.broker.port", "61617");
        try (var factory = new org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory(url)) {
            org.junit.jupiter.api.Assertions.assertThrows(
                    jakarta.jms.JMSSecurityRuntimeException.class,
                    () -> factory.createContext("courier", "courier").close());
            factory.createContext(dev.courier.testing.Broker.USER, dev.courier.testing.Broker.PASSWORD)
                    .close();
        }
    }

    @Test
    void should_refuse_a_change_a_browser_makes_for_another_site_and_keep_the_console_out_of_frames() {
        String queue = "csrf_"
                + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String own = "http://localhost:" + System.getProperty("it.http.port", "19080");
        for (String[] header :
                new String[][] {{"Origin", "http://evil.example"}, {"Sec-Fetch-Site", "cross-site"}, {"Origin", "null"}
                }) {
            Http.Response refused = http.send(HttpRequest.newBuilder(http.uri("api/queues/" + queue))
                    .header("Authorization", http.authorization())
                    .header(header[0], header[1])
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{}")));
            assertEquals(403, refused.status(), header[0] + ": " + header[1] + " → " + refused);
            assertEquals(
                    "urn:courier:problem:cross-site-request", refused.json().getString("type"));
            assertEquals(404, http.get("api/queues/" + queue).status(), "nothing was created");
        }
        Http.Response sameOrigin = http.send(HttpRequest.newBuilder(http.uri("api/queues/" + queue))
                .header("Authorization", http.authorization())
                .header("Origin", own)
                .header("Sec-Fetch-Site", "same-origin")
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{}")));
        assertEquals(201, sameOrigin.status(), "the console's own requests pass: " + sameOrigin);
        assertEquals(
                200,
                http.send(HttpRequest.newBuilder(http.uri("api/queues"))
                                .header("Authorization", http.authorization())
                                .header("Origin", "http://evil.example")
                                .GET())
                        .status(),
                "reading is not refused");
        assertEquals(204, http.delete("api/queues/" + queue).status());

        java.net.http.HttpResponse<String> console = rawGet("console/index.html");
        assertEquals("DENY", console.headers().firstValue("X-Frame-Options").orElse(null));
    }

    private java.net.http.HttpResponse<String> rawGet(String path) {
        try {
            return java.net.http.HttpClient.newBuilder()
                    .version(java.net.http.HttpClient.Version.HTTP_1_1)
                    .build()
                    .send(
                            HttpRequest.newBuilder(http.uri(path))
                                    .timeout(java.time.Duration.ofSeconds(10))
                                    .header("Authorization", http.authorization())
                                    .GET()
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void should_serve_the_api_under_a_proxys_public_name_and_the_management_paths_on_the_management_port_only()
            throws IOException {
        int api = http.uri("/").getPort();
        int management = Http.management().uri("/").getPort();
        // A proxy forwards the public name: without a port (80), with 443, or Courier's own port.
        for (String host : List.of("courier.example.com", "courier.example.com:443", "localhost:" + api)) {
            assertEquals(200, rawStatus(api, "api/queues", host, http.authorization()), host);
            assertEquals(404, rawStatus(api, "metrics", host, null), host);
            assertEquals(404, rawStatus(api, "health/ready", host, null), host);
        }
        // A request to an API port that names the management port in its Host reaches neither face's other paths.
        assertEquals(404, rawStatus(api, "health/ready", "localhost:" + management, null));
        // Whatever port a request to the management port names, it does not reach the API.
        for (String host : List.of("localhost:" + management, "localhost:" + api, "courier.example.com")) {
            assertEquals(404, rawStatus(management, "api/queues", host, http.authorization()), host);
        }
        assertEquals(200, rawStatus(management, "health/ready", "localhost:" + management, null));
    }

    /** The status of a GET to this machine's {@code port} with this Host header, over a plain socket. */
    private static int rawStatus(int port, String path, String host, String authorization) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("localhost", port)) {
            socket.setSoTimeout(30_000);
            String request = "GET /" + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
                    + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                    + "Connection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(
                            socket.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII))
                    .readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    @Test
    void should_keep_health_and_the_api_document_open_on_the_management_port() {
        assertEquals(200, Http.management().get("health/live").status());
        assertEquals(200, Http.management().get("openapi").status());
        assertEquals(404, http.anonymous().get("health/live").status(), "not on the API port");
    }

    @Test
    void should_give_an_authenticated_caller_no_session_cookie_that_would_outlive_its_password() {
        java.net.http.HttpResponse<String> answer = rawGet("api/queues");
        assertEquals(200, answer.statusCode(), answer::body);
        assertEquals(List.of(), answer.headers().allValues("Set-Cookie"), "each call carries its own credentials");
    }

    /** The status of a GET over HTTPS to this server at {@code host}. */
    private static int httpsStatus(String host, String path, String authorization) {
        return Http.httpsGet(host, path, authorization).status();
    }

    /** "METHOD path" of every operation in the served OpenAPI document and the lab's, but the test applications' own. */
    private Set<String> operations() {
        Http.Response document = Http.management()
                .send(HttpRequest.newBuilder(Http.management().uri("openapi"))
                        .header("Accept", "application/json")
                        .GET());
        assertEquals(200, document.status(), document::toString);
        Set<String> operations = new TreeSet<>();
        document.json().getJsonObject("paths").forEach((path, item) -> {
            if (!path.startsWith("/api/test/")) {
                item.asJsonObject().keySet().stream()
                        .filter(method ->
                                Set.of("get", "put", "post", "delete", "patch").contains(method))
                        .forEach(method -> operations.add(method.toUpperCase(java.util.Locale.ROOT) + " " + path));
            }
        });
        // The lab's operations (the tests run courier-lab.war, and the orders service beside it): their own
        // documents, not served.
        documented(Path.of("src/lab/openapi.yaml"), "", operations);
        documented(Path.of("src/lab/orders-openapi.yaml"), "/lab-orders", operations);
        return operations;
    }

    /** Adds "METHOD path" of each operation in {@code document}, its paths under {@code prefix}. */
    private static void documented(Path document, String prefix, Set<String> operations) {
        try (java.io.Reader reader = java.nio.file.Files.newBufferedReader(document)) {
            Map<?, ?> lab = new org.yaml.snakeyaml.Yaml().load(reader);
            ((Map<?, ?>) lab.get("paths"))
                    .forEach((path, item) -> ((Map<?, ?>) item)
                            .keySet().stream()
                                    .map(String::valueOf)
                                    .filter(method -> Set.of("get", "put", "post", "delete", "patch")
                                            .contains(method))
                                    .forEach(method -> operations.add(
                                            method.toUpperCase(java.util.Locale.ROOT) + " " + prefix + path)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Calls an operation with path parameters that name nothing and a body that is not a valid request, so no
     * call changes anything, whatever its answer: what is asserted is only whether the caller got past security.
     */
    private static Http.Response call(Http as, String operation) {
        String method = operation.substring(0, operation.indexOf(' '));
        String path = operation
                .substring(operation.indexOf(' ') + 2)
                .replace("{queue}", "security_probe")
                .replaceAll("\\{[a-z]+}", "no-such-thing");
        HttpRequest.Builder request = HttpRequest.newBuilder(as.uri(path));
        return switch (method) {
            case "GET" -> as.send(request.GET());
            case "DELETE" -> as.send(request.DELETE());
            default ->
                as.send(request.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString("\"not a request\"")));
        };
    }
}
