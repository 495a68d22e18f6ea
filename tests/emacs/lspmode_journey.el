;;; lspmode_journey.el --- lsp-mode 8 drives codex-lsp as a plain LSP client  -*- lexical-binding: t -*-
;; Ask from a code action, approve a command from a prompt, and read the answer, with no
;; "Unknown notification" warning for the streamed answer (or anything else).

(require 'lsp-mode)

(setq lsp-enabled-clients '(codex-lsp)
      lsp-auto-guess-root t
      lsp-enable-file-watchers nil
      lsp-keep-workspace-alive nil
      lsp-session-file (expand-file-name "lsp-session" (getenv "HOME"))
      lsp-restart 'ignore
      lsp-headerline-breadcrumb-enable nil
      lsp-modeline-code-actions-enable nil
      lsp-modeline-diagnostics-enable nil
      lsp-lens-enable nil
      lsp-enable-symbol-highlighting nil
      lsp-completion-enable nil)

(lsp-register-client
 (make-lsp-client :new-connection (lsp-stdio-connection (lambda () j-server))
                  :major-modes '(python-mode)
                  :server-id 'codex-lsp))

(j-run
 "lsp-mode: ask, approve, answer, no warning per delta"
 (lambda ()
   (find-file (expand-file-name "app.py" j-ws))
   (lsp)
   (j-wait "lsp-mode to initialize"
           (lambda () (let ((ws (car (lsp-workspaces))))
                        (and ws (eq (lsp--workspace-status ws) 'initialized)))))
   (goto-char (point-min))
   (let* ((actions (lsp-code-actions-at-point))
          (ask (seq-find (lambda (a) (equal (lsp:code-action-title a) "Ask Codex")) actions)))
     (unless ask (error "no Ask Codex action among %S" (mapcar #'lsp:code-action-title actions)))
     (lsp-execute-code-action ask))
   (j-wait "the answer" (lambda () (j-seen "Codex: The file sets x0 and x1")) 120)
   (j-eq (seq-count (lambda (p) (string-match-p "cat app.py" p)) j-prompts) 1
         "the command's approval prompts")
   (let ((unknown (seq-filter (lambda (m) (string-match-p "Unknown" m)) j-messages)))
     (when unknown (error "%d warnings: %s" (length unknown) (car unknown))))))
