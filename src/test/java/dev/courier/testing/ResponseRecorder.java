package dev.courier.testing;

import jakarta.json.Json;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Records every answer of the API during the integration tests (method, path, status, content type, body) into
 * {@code $COURIER_DATA_DIR/contract/responses.jsonl}, for {@code dev.courier.web.ContractCheckServerIT} to hold
 * against the OpenAPI document: whatever the tests made Courier answer must be documented, and must match its
 * schema. The test applications' own paths ({@code /api/test/*}) and event streams are left out.
 */
@WebFilter(urlPatterns = "/api/*", asyncSupported = true)
public class ResponseRecorder extends HttpFilter {

    private static final int MAX_BODY = 1024 * 1024;
    private static final Path FILE =
            Path.of(System.getenv().getOrDefault("COURIER_DATA_DIR", "target/it-data"), "contract", "responses.jsonl");

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request.getRequestURI().startsWith("/api/test/")) {
            chain.doFilter(request, response);
            return;
        }
        Copying copying = new Copying(response);
        chain.doFilter(request, copying);
        if (request.isAsyncStarted()) {
            request.getAsyncContext().addListener(new AsyncListener() {
                @Override
                public void onComplete(AsyncEvent event) {
                    record(request, copying);
                }

                @Override
                public void onTimeout(AsyncEvent event) {}

                @Override
                public void onError(AsyncEvent event) {}

                @Override
                public void onStartAsync(AsyncEvent event) {}
            });
        } else {
            record(request, copying);
        }
    }

    private static void record(HttpServletRequest request, Copying response) {
        String type = response.getContentType();
        if (type != null && type.startsWith("text/event-stream")) {
            return;
        }
        String line = Json.createObjectBuilder()
                .add("method", request.getMethod())
                .add("path", request.getRequestURI())
                .add("status", response.getStatus())
                .add("contentType", type == null ? "" : type)
                .add("body", response.copy.toString(StandardCharsets.UTF_8))
                .add("truncated", response.copy.size() >= MAX_BODY)
                .build()
                .toString();
        try {
            synchronized (ResponseRecorder.class) {
                Files.createDirectories(FILE.getParent());
                Files.writeString(
                        FILE,
                        line + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Passes the body on and keeps a copy of its first {@value #MAX_BODY} bytes. */
    private static final class Copying extends HttpServletResponseWrapper {

        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();
        private ServletOutputStream stream;
        private PrintWriter writer;

        Copying(HttpServletResponse response) {
            super(response);
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            if (stream == null) {
                ServletOutputStream out = super.getOutputStream();
                stream = new ServletOutputStream() {
                    @Override
                    public void write(int b) throws IOException {
                        out.write(b);
                        if (copy.size() < MAX_BODY) {
                            copy.write(b);
                        }
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        out.write(b, off, len);
                        copy.write(b, off, Math.max(0, Math.min(len, MAX_BODY - copy.size())));
                    }

                    @Override
                    public void flush() throws IOException {
                        out.flush();
                    }

                    @Override
                    public boolean isReady() {
                        return out.isReady();
                    }

                    @Override
                    public void setWriteListener(WriteListener listener) {
                        out.setWriteListener(listener);
                    }
                };
            }
            return stream;
        }

        /** A writer that buffers nothing: whoever writes and never flushes still reaches the client. */
        @Override
        public PrintWriter getWriter() throws IOException {
            if (writer == null) {
                ServletOutputStream out = getOutputStream();
                java.nio.charset.Charset charset = java.nio.charset.Charset.forName(
                        getCharacterEncoding() == null ? "UTF-8" : getCharacterEncoding());
                writer = new PrintWriter(new java.io.Writer() {
                    @Override
                    public void write(char[] chars, int offset, int length) throws IOException {
                        out.write(new String(chars, offset, length).getBytes(charset));
                    }

                    @Override
                    public void flush() throws IOException {
                        out.flush();
                    }

                    @Override
                    public void close() throws IOException {
                        out.close();
                    }
                });
            }
            return writer;
        }
    }
}
