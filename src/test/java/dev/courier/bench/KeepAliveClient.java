package dev.courier.bench;

import dev.courier.testing.Http;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * One worker's HTTP/1.1 connection to the server, blocking and kept alive, as a JDBC driver keeps its socket: each
 * request is written and its answer read on the calling thread, so the benchmark's client takes little of the CPU
 * it shares with the servers it measures (why: {@code docs/design.md}, "Queue speed", fourth pass). A request is
 * sent once: any failure closes the connection and is thrown, never retried (a resent send would be a second
 * message); the next request opens a new connection. Not thread-safe: one per worker.
 */
final class KeepAliveClient implements AutoCloseable {

    private final URI base;
    private final String authorization;
    private Socket socket;
    private OutputStream out;
    private InputStream in;

    KeepAliveClient(Http http) {
        this.base = http.uri("/");
        this.authorization = http.authorization();
    }

    /** POSTs {@code json} to {@code path} (relative to the server's root) and answers the status and body. */
    Http.Response post(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST " + base.resolve(path).getRawPath() + " HTTP/1.1\r\nHost: " + base.getHost() + ":"
                        + base.getPort() + "\r\nAuthorization: " + authorization
                        + "\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        try {
            if (socket == null) {
                open();
            }
            out.write(head);
            out.write(body);
            out.flush();
            return answer();
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            close(); // an answer this client cannot read: the connection's position in the stream is lost
            throw e;
        }
    }

    private void open() throws IOException {
        socket = new Socket(base.getHost(), base.getPort());
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(30_000);
        out = new BufferedOutputStream(socket.getOutputStream());
        in = new BufferedInputStream(socket.getInputStream());
    }

    private Http.Response answer() throws IOException {
        String statusLine = line();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        String contentType = "";
        int length = -1;
        boolean chunked = false;
        boolean closes = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                throw new IOException("not a header line: " + header);
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Integer.parseInt(value);
                case "content-type" -> contentType = value;
                case "transfer-encoding" ->
                    chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" ->
                    closes = Arrays.stream(value.split(","))
                            .anyMatch(token -> token.trim().equalsIgnoreCase("close"));
                default -> {}
            }
        }
        byte[] body;
        if (status == 204 || status == 304 || status < 200) {
            body = new byte[0];
        } else if (chunked) {
            body = chunks();
        } else if (length >= 0) {
            body = exactly(length);
        } else {
            body = in.readAllBytes(); // no framing: the body ends with the connection
            closes = true;
        }
        if (closes) {
            close();
        }
        return new Http.Response(status, contentType, new String(body, StandardCharsets.UTF_8));
    }

    private byte[] chunks() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int size = chunkSize(); size > 0; size = chunkSize()) {
            body.write(exactly(size));
            line(); // the CRLF after the chunk's data
        }
        while (!line().isEmpty()) { // trailers, if any, up to the empty line
        }
        return body.toByteArray();
    }

    private int chunkSize() throws IOException {
        return Integer.parseInt(line().split(";", 2)[0].trim(), 16);
    }

    private byte[] exactly(int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new EOFException("the answer ended after " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the server closed the connection");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing: nothing left to read or write
            }
            socket = null;
        }
    }
}
