package dev.courier.reliable;

import java.util.List;
import java.util.Optional;

/**
 * One page of a message query, oldest first; {@code next} is the cursor to pass as {@link MessageQuery#after} for
 * the following page, present when the page was full or ended at its byte budget.
 */
public record ReliableMessagePage(List<ReliableMessage> messages, Optional<String> next) {}
