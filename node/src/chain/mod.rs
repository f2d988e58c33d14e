//! Contract bindings, the `QuestionAsked` watcher and the verdict poster.
