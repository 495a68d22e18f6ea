;;; eglot_journey.el --- eglot 1.9 drives codex-lsp as a plain LSP client  -*- lexical-binding: t -*-
;; Ask from a code action, approve a command from a prompt, two patches to the open app.py and
;; one to lib.py (never opened) all on disk before the command reads them, the answer shown,
;; then "Undo the last Codex turn" puts both files back.

(load (expand-file-name "eglot_helpers.el" (file-name-directory load-file-name)))

(j-run
 "eglot: ask, approve, patches on disk, answer, undo this turn"
 (lambda ()
   (find-file (expand-file-name "app.py" j-ws))
   (let ((server (j-eglot-start))
         (buf (current-buffer))
         (last-nonmenu-event 0))           ; pick from a prompt, not a mouse menu
     (j-wait "the server to be ready" (lambda () (jsonrpc-running-p server)))
     (goto-char (point-min))
     (j-code-action server (point) (point))
     (j-wait "the answer" (lambda () (j-seen "Codex: Checked both files.")) 120)
     (j-eq (seq-count (lambda (p) (string-match-p "cat app.py lib.py" p)) j-prompts) 1
           "the command's approval prompts")
     (j-eq (with-current-buffer buf (buffer-string)) "x0 = 10\nx1 = 11\n" "app.py buffer")
     (j-eq (j-disk "app.py") "x0 = 10\nx1 = 11\n" "app.py on disk")
     (j-eq (j-disk "lib.py") "LIB = 2\n" "lib.py on disk")
     ;; The second patch finds the buffer modified and the disk changed under it (same text).
     (j-eq (seq-count (lambda (p) (string-match-p "changed on disk.  Discard your edits" p)) j-prompts)
           1 "Emacs's question about the file changed on disk")
     (j-eq (get-file-buffer (expand-file-name "lib.py" j-ws)) nil "a buffer for lib.py")
     (when (j-seen "Unknown") (error "a warning was shown: %s" (j-seen "Unknown")))

     (setq j-answers '("Undo the last Codex turn"))
     (with-current-buffer buf
       (j-code-action server (point-min) (point-min)))
     (j-wait "the files put back"
             (lambda () (and (equal (j-disk "lib.py") "LIB = 1\n")
                             (equal (with-current-buffer buf (buffer-string)) "x0 = 0\nx1 = 1\n"))))
     (j-eq (j-disk "app.py") "x0 = 0\nx1 = 1\n" "app.py on disk after undoing the turn")
     (j-wait "the undo reported" (lambda () (j-seen "undid the turn"))))))
