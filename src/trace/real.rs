//! Real threads' traces (`psearch --trace`): not yet written (issue 41).
