;;; helpers.el --- a small harness for the headless Emacs journeys  -*- lexical-binding: t -*-
;; Loaded by each journey (`emacs --batch -l helpers.el -l <journey>.el`). The pytest wrapper
;; (tests/emacs/test_emacs.py) sets the environment read here. Prompts are answered the way a
;; user would pick from them, and every message shown is recorded.

(require 'seq)
(require 'json)
(require 'python)

(defvar j-ws (file-name-as-directory (getenv "CODEX_EMACS_WS")))
(defvar j-server (append (json-read-from-string (getenv "CODEX_EMACS_SERVER_CMD")) nil))
(defvar j-messages nil "Every message shown, newest first.")
(defvar j-prompts nil "Every completing-read prompt, newest first.")
(defvar j-answers '("Approve" "Ask Codex" "Undo the last Codex turn")
  "Choices picked, in this order of preference, whenever one is offered.")

(defun j-log (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n") #'external-debugging-output))

(advice-add 'message :around
            (lambda (orig fmt &rest args)
              (when fmt
                (push (apply #'format-message fmt args) j-messages))
              (apply orig fmt args)))

(advice-add 'completing-read :around
            (lambda (_orig prompt collection &rest _)
              (push prompt j-prompts)
              (j-log "[prompt] %s" prompt)
              (let* ((items (all-completions "" collection))
                     (pick (or (seq-find (lambda (c) (member c items)) j-answers)
                               (seq-find (lambda (c) (string-prefix-p "Fix with Codex" c)) items))))
                (or pick (error "journey: no answer for %s %S" prompt items)))))

(advice-add 'y-or-n-p :around
            (lambda (_orig prompt &rest _)
              (push prompt j-prompts)
              (j-log "[y-or-n-p] %s" prompt)
              t))

(defun j-wait (what pred &optional secs)
  "Wait until PRED is true, serving the server meanwhile; fail after SECS (60)."
  (let ((deadline (+ (float-time) (or secs 60))))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun j-seen (needle)
  "The first message shown that contains NEEDLE."
  (seq-find (lambda (m) (string-match-p (regexp-quote needle) m)) j-messages))

(defun j-disk (name)
  (with-temp-buffer
    (insert-file-contents (expand-file-name name j-ws))
    (buffer-string)))

(defun j-eq (actual expected what)
  (unless (equal actual expected)
    (error "%s: expected %S, got %S" what expected actual)))

(defun j-run (name body)
  "Run BODY; exit 0 when it passes, 1 with the error when it fails."
  (condition-case err
      (progn (funcall body)
             (princ (format "PASS %s\n" name))
             (kill-emacs 0))
    (error
     (j-log "FAIL %s: %s" name (error-message-string err))
     (j-log "messages:\n%s" (mapconcat #'identity (reverse j-messages) "\n"))
     (kill-emacs 1))))

(setq python-indent-guess-indent-offset nil
      make-backup-files nil
      create-lockfiles nil)

(advice-add 'yes-or-no-p :around
            (lambda (_orig prompt &rest _)
              ;; "File changed on disk. Discard your edits?": the buffer already holds what the
              ;; disk holds, so keeping it (no) is as right as rereading it (yes).
              (push prompt j-prompts)
              (j-log "[yes-or-no-p] %s" prompt)
              nil))
