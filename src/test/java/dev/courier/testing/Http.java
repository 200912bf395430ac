package dev.courier.testing;

import dev.courier.platform.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Properties;

/**
 * A small HTTP client for client-side tests: requests against the test server, JSON bodies parsed. It calls as
 * {@code admin} (every role) unless told otherwise ({@link #as}, {@link #anonymous}), with the passwords the build
 * generated ({@code bin/credentials --test} into {@code <it.data.dir>/security}).
 */
public final class Http {

    // HTTP/1.1: with the default (HTTP/2 upgrade) the JDK client holds concurrent requests until the first answers.
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private static final String ADMIN = "admin";

    private final URI base;
    private final String authorization;

    public Http(String base) {
        this(URI.create(base.endsWith("/") ? base : base + "/"), basic(ADMIN));
    }

    private Http(URI base, String authorization) {
        this.base = base;
        this.authorization = authorization;
    }

    /** The same server as {@code user} of the generated registry ({@code admin}, {@code producer}, {@code consumer},
     * {@code nobody}, {@code partner}). */
    public Http as(String user) {
        return new Http(base, basic(user));
    }

    /** The {@code Authorization} header this client sends, for requests sent another way (a raw socket). */
    public String authorization() {
        return authorization;
    }

    /** The same server without credentials. */
    public Http anonymous() {
        return new Http(base, null);
    }

    /** The generated password of {@code user}. */
    public static String password(String user) {
        Path file = Path.of(System.getProperty("it.data.dir", "target/it-data"), "security", "credentials.properties");
        Properties credentials = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            credentials.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("no generated credentials at " + file + " (bin/credentials --test)", e);
        }
        String password = credentials.getProperty(user);
        if (password == null) {
            throw new IllegalArgumentException("no user " + user + " in " + file);
        }
        return password;
    }

    private static String basic(String user) {
        return basic(user, password(user));
    }

    /** The {@code Authorization} header value of HTTP Basic for {@code user} and {@code password}. */
    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** The test server at {@code http://localhost:<it.http.port>/}. */
    public static Http server() {
        return new Http("http://localhost:" + System.getProperty("it.http.port", "19080") + "/");
    }

    /**
     * The test server's management port, {@code http://localhost:<it.management.port>/}: Liberty's {@code /health},
     * {@code /metrics} and {@code /openapi}, without credentials.
     */
    public static Http management() {
        return new Http("http://localhost:" + System.getProperty("it.management.port", "19180") + "/").anonymous();
    }

    /** The management port of the server whose API port is {@code httpPort}: 100 above it, in the tests. */
    public static int managementPort(int httpPort) {
        return httpPort + 100;
    }

    /** The address of {@code path} on this server, for requests built by hand. */
    public URI uri(String path) {
        return base.resolve(path);
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    public Response delete(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).DELETE());
    }

    public Response put(String path, String json) {
        return send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Response post(String path, String json) {
        return post(path, "application/json", json);
    }

    public Response post(String path, String contentType, String body) {
        return send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public Response send(HttpRequest.Builder request) {
        try {
            if (authorization != null) {
                request.setHeader("Authorization", authorization);
            }
            HttpResponse<String> response =
                    CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            return new Response(
                    response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(""),
                    response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A GET over HTTPS from this client, to this machine, with its credentials. */
    public Response httpsGet(String path) {
        return httpsGet("localhost", path, authorization);
    }

    /** This machine's first IPv4 address other than loopback: calls to it are calls from another host. */
    public static String externalAddress() throws java.net.SocketException {
        java.net.InetAddress address =
                java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
                        .flatMap(i -> java.util.Collections.list(i.getInetAddresses()).stream())
                        .filter(a ->
                                a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                        .findFirst()
                        .orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                address != null, "this machine has an address other than loopback");
        return address.getHostAddress();
    }

    /**
     * A GET over HTTPS to the test server at {@code host} (port {@code COURIER_HTTPS_PORT}, 19443), trusting its
     * self-signed certificate whatever name it bears; {@code authorization} may be null.
     */
    public static Response httpsGet(String host, String path, String authorization) {
        return httpsGet(
                host,
                Integer.parseInt(System.getenv().getOrDefault("COURIER_HTTPS_PORT", "19443")),
                path,
                authorization);
    }

    /** {@link #httpsGet(String, String, String)} as a proxy forwards it: with {@code X-Forwarded-For: client}. */
    public static Response httpsGetForwarded(String host, String path, String authorization, String client) {
        return httpsGet(
                host,
                Integer.parseInt(System.getenv().getOrDefault("COURIER_HTTPS_PORT", "19443")),
                path,
                authorization,
                java.util.Map.of("X-Forwarded-For", client));
    }

    /** {@link #httpsGet(String, String, String)} on another port: a server the test started itself. */
    public static Response httpsGet(String host, int port, String path, String authorization) {
        return httpsGet(host, port, path, authorization, java.util.Map.of());
    }

    private static Response httpsGet(
            String host, int port, String path, String authorization, java.util.Map<String, String> headers) {
        try {
            javax.net.ssl.HttpsURLConnection tls =
                    (javax.net.ssl.HttpsURLConnection) URI.create("https://" + host + ":" + port + "/" + path)
                            .toURL()
                            .openConnection();
            tls.setSSLSocketFactory(TrustAny.FACTORY); // one factory: connections are kept alive between calls
            tls.setHostnameVerifier((name, session) -> true);
            tls.setInstanceFollowRedirects(false);
            if (authorization != null) {
                tls.setRequestProperty("Authorization", authorization);
            }
            headers.forEach(tls::setRequestProperty);
            int status = tls.getResponseCode();
            java.io.InputStream in = status < 400 ? tls.getInputStream() : tls.getErrorStream();
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Response(status, tls.getContentType() == null ? "" : tls.getContentType(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Trusts the certificate Liberty generated for the tests, whoever signed it. */
    private static final class TrustAny {

        static final javax.net.ssl.SSLSocketFactory FACTORY;

        static {
            try {
                javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
                context.init(
                        null,
                        new javax.net.ssl.TrustManager[] {
                            new javax.net.ssl.X509TrustManager() {
                                @Override
                                public void checkClientTrusted(
                                        java.security.cert.X509Certificate[] chain, String type) {}

                                @Override
                                public void checkServerTrusted(
                                        java.security.cert.X509Certificate[] chain, String type) {}

                                @Override
                                public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                                    return new java.security.cert.X509Certificate[0];
                                }
                            }
                        },
                        null);
                FACTORY = context.getSocketFactory();
            } catch (java.security.GeneralSecurityException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** Status, content type and body of one response. */
    public record Response(int status, String contentType, String body) {

        public JsonObject json() {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                return reader.readObject();
            }
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + body;
        }
    }
}
