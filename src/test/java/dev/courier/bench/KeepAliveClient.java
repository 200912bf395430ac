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
import java.util.Locale;

/**
 * One worker's HTTP/1.1 connection to the server, blocking and kept alive, as a JDBC driver keeps its socket: a
 * request is written, its answer read, on the calling thread. The benchmark's REST workers use it instead of the
 * JDK's {@code HttpClient}, which hands every call to its selector thread and back: on this two-core machine that
 * client spent 0.4 ms of CPU per request against 0.1-0.15 ms for this one (the same loop, measured from the client's
 * process), CPU the servers it measures then lack, where PGMQ's side of the comparison pays only its JDBC driver.
 * Not thread-safe: one per worker.
 */
final class KeepAliveClient implements AutoCloseable {

    private final URI base;
    private final String authorization;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private long connections;

    KeepAliveClient(Http http) {
        this.base = http.uri("/");
        this.authorization = http.authorization();
    }

    /** The connections this client opened: one, unless the server closed an idle or spent one. */
    long connections() {
        return connections;
    }

    /** POSTs {@code json} to {@code path} (relative to the server's root) and answers the status and body. */
    Http.Response post(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST " + base.resolve(path).getRawPath() + " HTTP/1.1\r\nHost: " + base.getHost() + ":"
                + base.getPort() + "\r\nAuthorization: " + authorization + "\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        try {
            boolean reused = socket != null;
            if (!reused) {
                open();
            }
            String status;
            try {
                write(head, body);
                status = line();
            } catch (IOException e) {
                if (!reused) {
                    throw e;
                }
                // The server closed the kept connection between two requests (idle or per-connection limit): it
                // read nothing of this one, so sending it again on a new connection sends it once.
                close();
                open();
                write(head, body);
                status = line();
            }
            return read(status);
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        }
    }

    private void open() throws IOException {
        socket = new Socket(base.getHost(), base.getPort());
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(30_000);
        out = new BufferedOutputStream(socket.getOutputStream());
        in = new BufferedInputStream(socket.getInputStream());
        connections++;
    }

    private void write(byte[] head, byte[] body) throws IOException {
        out.write(head);
        out.write(body);
        out.flush();
    }

    private Http.Response read(String statusLine) throws IOException {
        int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
        String contentType = "";
        int length = -1;
        boolean chunked = false;
        boolean closes = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Integer.parseInt(value);
                case "content-type" -> contentType = value;
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> closes = value.equalsIgnoreCase("close");
                default -> { }
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int size = Integer.parseInt(line().split(";")[0].trim(), 16); size > 0;
                    size = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                body.write(in.readNBytes(size));
                line();
            }
            while (!line().isEmpty()) { // trailers
            }
        } else if (length > 0) {
            byte[] bytes = in.readNBytes(length);
            if (bytes.length < length) {
                throw new EOFException("the answer ended early");
            }
            body.write(bytes);
        }
        if (closes) {
            close();
        }
        return new Http.Response(status, contentType, body.toString(StandardCharsets.UTF_8));
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
