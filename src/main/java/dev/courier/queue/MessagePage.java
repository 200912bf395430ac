package dev.courier.queue;

import java.util.List;
import java.util.Optional;

/** One page of a query, ordered by message id; {@code next} is the cursor for the following page, if any. */
public record MessagePage(List<MessageView> messages, Optional<String> next) {}
