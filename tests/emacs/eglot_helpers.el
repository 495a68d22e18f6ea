;;; eglot_helpers.el --- what the eglot journeys share  -*- lexical-binding: t -*-

(require 'eglot)

(defun j-eglot-start ()
  "Connect eglot to codex-lsp for the current buffer, as `eglot-ensure' does after the next
command (which a batch session never runs)."
  (add-to-list 'eglot-server-programs `(python-mode . ,j-server))
  (eglot '(python-mode) (project-current) 'eglot-lsp-server j-server "python")
  (j-wait "eglot to connect" (lambda () (eglot-current-server)))
  (eglot-current-server))

(defun j-code-action (server beg end)
  "Offer the code actions between BEG and END and run the one picked, as
`eglot-code-actions' does (whose deferred request waits for an idle editor)."
  (let ((actions (jsonrpc-request
                  server :textDocument/codeAction
                  (list :textDocument (eglot--TextDocumentIdentifier)
                        :range (list :start (eglot--pos-to-lsp-position beg)
                                     :end (eglot--pos-to-lsp-position end))
                        :context
                        `(:diagnostics
                          [,@(cl-loop for diag in (flymake-diagnostics beg end)
                                      when (cdr (assoc 'eglot-lsp-diag (eglot--diag-data diag)))
                                      collect it)])))))
    (eglot--read-execute-code-action (append actions nil) server)))

